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

    /// Settings with `durability` (normal by default) and a client cache of `clientCacheSize`
    /// bytes (10 MB by default).
    /// - Throws: ``PersistenceSettingsError`` when the size is outside ``cacheSizeRange``.
    public init(durability: Durability = .normal, clientCacheSize: Int = 10_000_000) throws(PersistenceSettingsError) {
        guard Self.cacheSizeRange.contains(clientCacheSize) else {
            throw PersistenceSettingsError(
                message: "the client cache size must be between 1 MB and 100 MB (1000000 to 100000000 bytes), not \(clientCacheSize)")
        }
        self.durability = durability
        self.clientCacheSize = clientCacheSize
    }

    /// The defaults: `normal` durability, a 10 MB client cache.
    public static let standard = PersistenceSettings(checked: .normal, clientCacheSize: 10_000_000)

    private init(checked durability: Durability, clientCacheSize: Int) {
        self.durability = durability
        self.clientCacheSize = clientCacheSize
    }
}
