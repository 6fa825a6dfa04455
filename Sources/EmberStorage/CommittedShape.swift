import EmberCore

/// What the rows of one location held at the last commit, as far as a commit needs it to skip
/// statements: whether the location was a leaf (one row), held nothing (no row), and its
/// priority (a row of its own). An object's rows below it are not described: a location that
/// was an object has its rows deleted by range before it is written again.
public struct CommittedShape: Sendable, Equatable {
    /// Whether the location held a leaf value.
    public let isLeaf: Bool
    /// Whether the location held nothing.
    public let isEmpty: Bool
    /// The location's priority.
    public let priority: Priority?

    /// The shape of `node` as the store's rows hold it.
    /// - Complexity: O(1).
    public init(_ node: Node) {
        isLeaf = node.isLeaf
        isEmpty = node.isEmpty
        priority = node.priority
    }
}
