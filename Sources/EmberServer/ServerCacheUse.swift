/// What the server's tree holds in memory (``Server/cacheUse``), for `status`.
public struct ServerCacheUse: Sendable, Hashable {
    /// The bytes of stored rows the loaded locations are counted for.
    public let bytes: Int
    /// How many locations are loaded whole (regions).
    public let regions: Int
    /// How many locations were read from the store since it opened.
    public let loads: Int
    /// How many locations were evicted since it opened.
    public let evictions: Int
    /// Whether the tree is read from a store (else it is all in memory).
    public let isPaged: Bool
}
