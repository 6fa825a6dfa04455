import EmberServer
import EmberStorage

/// How a database directory is kept: when writes reach the disk, and how much server data each
/// client caches.
public struct PersistenceSettings: Sendable, Hashable {
    /// The smallest and largest cache size a client accepts, in bytes (1 MB to 100 MB).
    public static let cacheSizeRange = 1_000_000...100_000_000

    /// When commits reach the disk (`--durability`).
    public var durability: Durability
    /// Above this many bytes of cached server data, a client prunes the least recently used
    /// (never kept-synced locations or pending writes). 10 MB by default.
    public var clientCacheSize: Int

    /// How many bytes of stored rows the server keeps in memory before it evicts the least
    /// recently used locations no listen holds (`--cache-size`). 64 MB by default.
    public var serverCacheSize: Int

    /// The smallest server cache size accepted, in bytes (everything not listened to is then
    /// evicted after each tick: slow, but exact; what tests use to run with a cache smaller
    /// than the data).
    public static let minimumServerCacheSize = 1

    /// Settings with `durability` (normal by default), a client cache of `clientCacheSize`
    /// bytes (10 MB by default) and a server cache of `serverCacheSize` bytes (64 MB).
    /// - Throws: ``PersistenceSettingsError`` when a size is outside its range.
    public init(
        durability: Durability = .normal, clientCacheSize: Int = 10_000_000, serverCacheSize: Int = Server.defaultCacheSize
    ) throws(PersistenceSettingsError) {
        guard Self.cacheSizeRange.contains(clientCacheSize) else {
            throw PersistenceSettingsError(
                message: "the client cache size must be between 1 MB and 100 MB (1000000 to 100000000 bytes), not \(clientCacheSize)")
        }
        guard serverCacheSize >= Self.minimumServerCacheSize else {
            throw PersistenceSettingsError(message: "the cache size must be a positive number of bytes, not \(serverCacheSize)")
        }
        self.durability = durability
        self.clientCacheSize = clientCacheSize
        self.serverCacheSize = serverCacheSize
    }

    /// The defaults: `normal` durability, a 10 MB client cache, a 64 MB server cache.
    public static let standard = PersistenceSettings(checked: .normal, clientCacheSize: 10_000_000, serverCacheSize: Server.defaultCacheSize)

    private init(checked durability: Durability, clientCacheSize: Int, serverCacheSize: Int) {
        self.durability = durability
        self.clientCacheSize = clientCacheSize
        self.serverCacheSize = serverCacheSize
    }
}
