/// Something that batches its work until the end of the engine's tick: the stores, which commit
/// what changed in one transaction, and the server, which sends what it held back for the
/// commit.
///
/// The engine ends a tick whenever nothing is due: it asks each participant, in the order they
/// were added, to end theirs.
public protocol TickParticipant: AnyObject {
    /// Whether the participant has work waiting for the end of the tick.
    var hasTickWork: Bool { get }
    /// Does that work (commits, sends what was held back).
    func endTick()
}
