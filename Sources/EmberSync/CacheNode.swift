import EmberCore

/// A view's copy of some data, with what it knows about its own completeness.
///
/// `node` holds only complete children. Whether the node as a whole is known (`completeness`)
/// and whether a query's filter may have dropped children from it (`scope`) are kept apart:
/// "nothing known yet" and "known to be empty" look the same as nodes, and mixing them up is
/// the classic bug of this design.
public struct CacheNode: Sendable {
    /// Whether the node was set as a whole, from the server or by a user overwrite.
    public enum Completeness: Sendable, Hashable {
        /// Only the children present are known.
        case partial
        /// The whole node is known (within its scope).
        case complete
    }

    /// Whether a filter may have removed children.
    public enum Scope: Sendable, Hashable {
        /// Every known child is kept.
        case whole
        /// Only the children a query's range and limit select are kept.
        case filtered
    }

    /// The data.
    public var node: Node
    /// How much of the location the data covers.
    public var completeness: Completeness
    /// Whether children outside a query's window were dropped.
    public var scope: Scope

    public init(_ node: Node, _ completeness: Completeness, _ scope: Scope) {
        self.node = node
        self.completeness = completeness
        self.scope = scope
    }

    init(_ node: Node, complete: Bool, filtered: Bool) {
        self.init(node, complete ? .complete : .partial, filtered ? .filtered : .whole)
    }

    /// Nothing known.
    static let unknown = CacheNode(.empty, .partial, .whole)

    /// Whether the whole node is known.
    public var isComplete: Bool { completeness == .complete }

    /// Whether a filter may have dropped children.
    public var isFiltered: Bool { scope == .filtered }

    /// The node, when it is complete.
    public var completeNode: Node? { isComplete ? node : nil }

    /// Whether the data at `path` below this node is known.
    /// - Complexity: O(log n).
    public func isComplete(for path: Path) -> Bool {
        guard let front = path.front else { return isComplete && !isFiltered }
        return isComplete(forChild: front)
    }

    /// Whether the child at `key` is known (a known-absent child counts as known when the
    /// whole, unfiltered node is complete).
    /// - Complexity: O(log n).
    public func isComplete(forChild key: ChildKey) -> Bool {
        (isComplete && !isFiltered) || !node.child(key).isEmpty
    }
}
