import EmberCore

/// A query a client has listened to, kept so that its cached data can be trusted (and pruned)
/// after it stops listening, and after a restart.
public struct TrackedQuery: Sendable, Hashable {
    /// Whether the server ever sent all of the query's data.
    public enum Completeness: Sendable, Hashable {
        case partial
        case complete
    }

    /// Whether a listener holds the query now.
    public enum Activity: Sendable, Hashable {
        case inactive
        case active
    }

    /// The store's number for the query.
    public let id: Int64
    /// The query; one that loads all data is kept as the default query at its location.
    public let query: QuerySpec
    public var completeness: Completeness
    public var activity: Activity
    /// When it was last listened to, in milliseconds since 1970 (what pruning orders by).
    public var lastUse: Int64
    /// For a filtered query, the children in its window when it was complete: the cached
    /// children its data is made of.
    public var keys: Set<ChildKey>

    public init(
        id: Int64, query: QuerySpec, completeness: Completeness, activity: Activity, lastUse: Int64,
        keys: Set<ChildKey> = []
    ) {
        self.id = id
        self.query = query
        self.completeness = completeness
        self.activity = activity
        self.lastUse = lastUse
        self.keys = keys
    }

    public var isComplete: Bool { completeness == .complete }
    public var isActive: Bool { activity == .active }
}
