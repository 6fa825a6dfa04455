/// How a server is set up: where it keeps its data and when it acknowledges writes.
public struct ServerOptions: Sendable, Hashable {
    /// The directory holding the server's SQLite store; `nil` keeps everything in memory.
    public var directory: String?

    /// When writes are acknowledged relative to reaching the disk. Without a directory there is
    /// no disk, and the setting has no effect.
    public var durability: Durability

    /// How long the server waits for a silent connection before it declares it dead and runs
    /// its onDisconnect operations.
    public var disconnectTimeout: Duration

    /// Creates options; by default in memory, `normal` durability, a 60-second disconnect timeout.
    public init(directory: String? = nil, durability: Durability = .normal, disconnectTimeout: Duration = .seconds(60)) {
        self.directory = directory
        self.durability = durability
        self.disconnectTimeout = disconnectTimeout
    }
}
