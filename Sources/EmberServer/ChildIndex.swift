import EmberCore

/// A sorted index of the children of one location in value or child order (`.indexOn`).
///
/// ``QueryParams/filter(_:)`` answers key and priority order from the node's own B-trees, but
/// value and child order need every child sorted. A `ChildIndex` keeps that order in a
/// ``SortedTree`` of ``IndexedValueKey``s, so a query walks only the children it returns:
///
/// ```swift
/// var index = ChildIndex(.child("height"), children: dinosaurs)
/// let tallest = index.query(try QueryParams().orderedBy(.child("height")).limitedToLast(2))
/// index.update("rex", from: dinosaurs.child("rex"), to: newRex)   // after every change of a child
/// ```
///
/// The index holds each child's key, ordered-by value and node (shared with the location's
/// tree, not copied), so a query's answer needs no look-up of its children in a location of a
/// million: ten look-ups of a top ten were a third of the server's answer. The price is a
/// B-tree update per change of a child even when its ordered-by value stays. Key and priority
/// order need no index.
public struct ChildIndex: Sendable {
    /// The order of the index: `.value` or `.child(path)`.
    public let index: Index

    /// Every child, in the order of ``index``, with its node.
    private var tree: SortedTree<IndexedValueKey, Node>

    /// Builds the index of the children of `location` (none when it is empty or a leaf).
    /// - Precondition: `index` is `.value` or `.child(path)`.
    /// - Complexity: O(n log n) for n children (O(d log m) more per child for a child path).
    public init(_ index: Index, children location: Node) {
        switch index {
        case .value, .child: break
        case .key, .priority: preconditionFailure("a ChildIndex orders by value or child, not by \(index)")
        }
        self.index = index
        var entries = location.children.map { (key: IndexedValueKey($0, in: index), value: $0.node) }
        entries.sort { IndexedValueKey.compare($0.key, $1.key) < 0 }
        tree = SortedTree(sorted: entries)
    }

    /// The number of children indexed.
    /// - Complexity: O(1).
    public var count: Int { tree.count }

    /// Whether no child is indexed.
    /// - Complexity: O(1).
    public var isEmpty: Bool { tree.isEmpty }

    /// The keys of the children in index order, with the values they are ordered by.
    /// - Complexity: O(n).
    public var keys: [IndexedValueKey] { tree.keys }

    /// Follows a change of the child at `key` from `old` to `new` (empty `old`: the child is
    /// new; empty `new`: it was removed). Call it for every change of a child of the location,
    /// with the child's whole node before and after.
    /// - Complexity: O(log n) (plus the child-path look-ups in `old` and `new`).
    public mutating func update(_ key: ChildKey, from old: Node, to new: Node) {
        let oldKey = old.isEmpty ? nil : IndexedValueKey(NamedNode(key, old), in: index)
        let newKey = new.isEmpty ? nil : IndexedValueKey(NamedNode(key, new), in: index)
        if oldKey != newKey, let oldKey { tree.removeValue(forKey: oldKey) }
        if let newKey { tree.updateValue(new, forKey: newKey) }
    }

    /// The children that `params` returns, in the query's order: exactly what
    /// `params.filter(location)` returns for the location the index is kept in step with,
    /// found without looking at the children out of range.
    /// - Precondition: `params.index == index`.
    /// - Complexity: O(log n + k) steps through the index for k results.
    public func query(_ params: QueryParams) -> [NamedNode] {
        precondition(params.index == index, "a query ordered by \(params.index) cannot use an index ordered by \(index)")
        let start = params.start
        let end = params.end
        var children: [NamedNode] = []
        switch params.limit {
        case .last(let count)?:
            children.reserveCapacity(min(count, tree.count))
            var cursor = tree.entries(from: end == nil ? .end : .lastWhere { $0.isBeforeEnd(end) })
            while children.count < count, let entry = cursor.next() {
                guard entry.key.isAfterStart(start) else { break }
                children.append(NamedNode(entry.key.key, entry.value))
            }
            children.reverse()
        case .first(let count)?:
            children = collectForwards(from: start, to: end, maximum: count)
        case nil:
            children = collectForwards(from: start, to: end, maximum: .max)
        }
        return children
    }

    /// The children from the start of the range on, up to `maximum` of them.
    private func collectForwards(from start: RangeBound?, to end: RangeBound?, maximum: Int) -> [NamedNode] {
        var children: [NamedNode] = []
        var cursor = tree.entries(from: start == nil ? .start : .firstWhere { $0.isAfterStart(start) })
        while children.count < maximum, let entry = cursor.next() {
            guard entry.key.isBeforeEnd(end) else { break }
            children.append(NamedNode(entry.key.key, entry.value))
        }
        return children
    }
}
