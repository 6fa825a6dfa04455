/// How hard the stores work to keep acknowledged writes through a crash
/// (`ember --durability off|normal|full`).
///
/// Every mode commits a tick's writes in one SQLite transaction in write-ahead-log mode, and the
/// server acknowledges a write only once its transaction has committed, so a multi-path update
/// is never half applied, a crash of the process loses no acknowledged write, and the file
/// always opens; the modes differ in when SQLite calls `fsync`, which is what a crash of the
/// machine (power loss) tests.
public enum Durability: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// No `fsync` at all (`synchronous=OFF`): a crash of the machine may lose recent commits;
    /// a crash of the process loses nothing committed.
    case off
    /// `fsync` at checkpoints only (`synchronous=NORMAL`): a crash of the machine may lose the
    /// last commits, never corrupt the file.
    case normal
    /// `fsync` on every commit (`synchronous=FULL`): a write acknowledged after its commit is on
    /// disk.
    case full

    /// The name, as on the command line.
    public var description: String { rawValue }

    /// The SQLite `synchronous` setting for the mode.
    var synchronousPragma: String {
        switch self {
        case .off: "OFF"
        case .normal: "NORMAL"
        case .full: "FULL"
        }
    }
}
