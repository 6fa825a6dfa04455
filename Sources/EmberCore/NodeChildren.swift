/// The children of a ``Node`` in key order, as a sequence of ``NamedNode``s.
public struct NodeChildren: Sequence, IteratorProtocol, Sendable {
    private var cursor: SortedTreeCursor<ChildKey, Node>

    init(tree: SortedTree<ChildKey, Node>, start: SortedTreeCursor<ChildKey, Node>.Start) {
        cursor = tree.entries(from: start)
    }

    /// The next child.
    /// - Complexity: O(1) amortised.
    public mutating func next() -> NamedNode? {
        cursor.next().map { NamedNode($0.key, $0.value) }
    }
}

