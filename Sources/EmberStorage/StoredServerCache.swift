import EmberCore

/// What a client's store knows of a query's server data after a restart, and how far it can be
/// trusted.
public struct StoredServerCache: Sendable, Hashable {
    /// How much of the query's data ``node`` is.
    public enum Coverage: Sendable, Hashable {
        /// All of the location's data (a default query, or one below it, completed before).
        case complete
        /// All of a filtered query's data: the children that were in its window when it
        /// completed.
        case completeWindow
        /// Only the children present are known (each from some query that completed).
        case partial
    }

    public let node: Node
    public let coverage: Coverage

    public init(node: Node, coverage: Coverage) {
        self.node = node
        self.coverage = coverage
    }
}
