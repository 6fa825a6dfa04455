import EmberCore
import EmberWire

/// What a server with a store has done since its last commit: whether it wrote (the tree as it
/// was before is kept by the ``ServerTree``), and every message it owes its connections, held
/// until the tick's changes are on disk.
///
/// A value: the host (``Server``) fills it with the messages of the core's actions, and
/// ``Server/endTick()`` either releases it (the commit succeeded) or undoes it (the commit
/// failed: the tree goes back to what it was, the writes are refused, and listeners hear
/// nothing of them).
struct ServerTick {
    /// Whether the tick wrote.
    var wrote = false
    /// The core's actions since the last commit, in the order they were made: the messages
    /// owed wait here for the commit; the others were done when
    /// they were made and are passed over.
    var held: [ServerAction] = []
    /// Whether anything waits for the end of the tick.
    var isEmpty: Bool { !wrote && held.isEmpty }
}
