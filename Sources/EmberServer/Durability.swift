/// When the server acknowledges a write, relative to the write reaching the disk
/// (`ember --durability off|normal|full`).
///
/// The server serves from memory and writes through to SQLite in group commits, one transaction
/// per engine tick. Durability decides what an `ok` acknowledgement promises.
public enum Durability: String, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    /// Nothing is written to disk: the data lives as long as the process.
    case off
    /// Committed in the next group commit, without an fsync per commit: a crash of the machine
    /// (not of the process) can lose the last acknowledged writes. The default.
    case normal
    /// An acknowledged write has been committed and fsynced.
    case full

    /// The name, as on the command line.
    public var description: String { rawValue }
}
