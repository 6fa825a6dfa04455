import EmberCore

/// A sorted index of the children of one location in value or child order (`.indexOn`).
///
/// ``QueryParams/filter(_:)`` answers key and priority order from the node's own B-trees, but
/// value and child order need every child sorted. A `ChildIndex` keeps that order in a
/// ``SortedTree`` of ``IndexedValueKey``s, so a query walks only the children it returns:
///
/// ```swift
/// var index = ChildIndex(.child("height"), children: dinosaurs)
/// let tallest = index.query(try QueryParams().orderedBy(.child("height")).limitedToLast(2), in: dinosaurs)
/// index.update("rex", from: dinosaurs.child("rex"), to: newRex)   // after every change of a child
/// ```
///
/// The index holds keys and ordered-by values only; the child nodes come from the location
/// passed to ``query(_:in:)``, which must be the location the index has been kept in step with.
/// Key and priority order need no index.
public struct ChildIndex: Sendable {
    /// The order of the index: `.value` or `.child(path)`.
    public let index: Index

    /// Every child, in the order of ``index``.
    private var tree: SortedTree<IndexedValueKey, Void>

    /// Builds the index of the children of `location` (none when it is empty or a leaf).
    /// - Precondition: `index` is `.value` or `.child(path)`.
    /// - Complexity: O(n log n) for n children (O(d log m) more per child for a child path).
    public init(_ index: Index, children location: Node) {
        switch index {
        case .value, .child: break
        case .key, .priority: preconditionFailure("a ChildIndex orders by value or child, not by \(index)")
        }
        self.index = index
        var keys = location.children.map { IndexedValueKey($0, in: index) }
        keys.sort { IndexedValueKey.compare($0, $1) < 0 }
        tree = SortedTree(sorted: keys.lazy.map { (key: $0, value: ()) })
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
        if oldKey == newKey { return }
        if let oldKey { tree.removeValue(forKey: oldKey) }
        if let newKey { tree.updateValue((), forKey: newKey) }
    }

    /// The children of `location` that `params` returns, in the query's order: exactly what
    /// `params.filter(location)` returns, found without looking at the children out of range.
    /// - Precondition: `params.index == index`, and the index is up to date with `location`.
    /// - Complexity: O(log n + k) steps through the index for k results, plus one O(log n)
    ///   look-up of each result in `location`.
    public func query(_ params: QueryParams, in location: Node) -> [NamedNode] {
        precondition(params.index == index, "a query ordered by \(params.index) cannot use an index ordered by \(index)")
        let start = params.start
        let end = params.end
        var keys: [ChildKey] = []
        switch params.limit {
        case .last(let count)?:
            var cursor = tree.entries(from: end == nil ? .end : .lastWhere { $0.isBeforeEnd(end) })
            while keys.count < count, let entry = cursor.next() {
                guard entry.key.isAfterStart(start) else { break }
                keys.append(entry.key.key)
            }
            keys.reverse()
        case .first(let count)?:
            keys = collectForwards(from: start, to: end, maximum: count)
        case nil:
            keys = collectForwards(from: start, to: end, maximum: .max)
        }
        return keys.map { key in
            let child = location.child(key)
            assert(!child.isEmpty, "the index of \(index) lists \(key), which \(location) lacks: it is out of date")
            return NamedNode(key, child)
        }
    }

    /// The keys of the children from the start of the range on, up to `maximum` of them.
    private func collectForwards(from start: RangeBound?, to end: RangeBound?, maximum: Int) -> [ChildKey] {
        var keys: [ChildKey] = []
        var cursor = tree.entries(from: start == nil ? .start : .firstWhere { $0.isAfterStart(start) })
        while keys.count < maximum, let entry = cursor.next() {
            guard entry.key.isBeforeEnd(end) else { break }
            keys.append(entry.key.key)
        }
        return keys
    }
}
