/// A persistent sorted map: a copy-on-write B-tree with subtree counts.
///
/// `SortedTree` is a value type. Copies share their nodes, so keeping an old version alive costs
/// nothing until one of the copies is changed; a change then copies only the nodes on the path
/// from the root to the changed entry (at most `O(log n)` nodes of at most
/// ``maxEntries`` entries each) and shares the rest. When a tree is not shared, changes happen in
/// place. That makes it the right structure for the children of a JSON node: cheap snapshots of
/// whole trees (every event carries one), and fast bulk building.
///
/// Each node stores its entries in one contiguous array and the number of entries in its
/// subtree, so the tree answers positional questions (the n-th entry, the position of a key) in
/// `O(log n)` as well. Entries are kept in ``TreeKey/compare(_:_:)`` order; cursors walk them
/// forwards or backwards from any position in `O(1)` amortised per step.
///
/// Nodes split when they exceed ``maxEntries``; a node that grew at its end splits unevenly
/// (everything but the new entry stays left), so keys inserted in ascending order — push IDs —
/// fill nodes completely instead of half.
public struct SortedTree<Key: TreeKey, Value: Sendable>: Sendable {
    /// One key and its value.
    public typealias Element = (key: Key, value: Value)

    /// The most entries a node holds before it splits.
    public static var maxEntries: Int { 32 }

    /// The fewest entries a non-root node keeps after a removal before it is rebalanced.
    static var minEntries: Int { maxEntries / 4 }

    @usableFromInline
    var root: SortedTreeNode<Key, Value>?

    /// Creates an empty tree.
    @inlinable
    public init() { root = nil }

    /// The number of entries.
    /// - Complexity: O(1).
    @inlinable
    public var count: Int { root?.count ?? 0 }

    /// Whether the tree has no entries.
    /// - Complexity: O(1).
    @inlinable
    public var isEmpty: Bool { root == nil }

    /// Whether two trees share their root node (a cheap, conservative equality test).
    /// - Complexity: O(1).
    @inlinable
    public func isIdentical(to other: SortedTree) -> Bool { root === other.root }

    // MARK: Look-up

    /// The value for `key`, or `nil`.
    /// - Complexity: O(log n) comparisons.
    @inlinable
    public subscript(key: Key) -> Value? {
        var node = root
        while let current = node {
            let (index, found) = current.search(key)
            if found { return current.entries[index].value }
            if current.children.isEmpty { return nil }
            node = current.children[index]
        }
        return nil
    }

    /// The entry at a position in key order.
    /// - Precondition: `0 <= offset < count`.
    /// - Complexity: O(log n).
    public func element(at offset: Int) -> Element {
        precondition(offset >= 0 && offset < count, "offset \(offset) out of range 0..<\(count)")
        var node = root!
        var offset = offset
        while true {
            if node.children.isEmpty { return node.entries[offset] }
            for index in 0...node.entries.count {
                let childCount = node.children[index].count
                if offset < childCount {
                    node = node.children[index]
                    break
                }
                offset -= childCount
                if index < node.entries.count {
                    if offset == 0 { return node.entries[index] }
                    offset -= 1
                }
            }
        }
    }

    /// The number of entries whose key sorts before `key` (its position if it were inserted).
    /// - Complexity: O(log n).
    public func rank(of key: Key) -> Int {
        var node = root
        var rank = 0
        while let current = node {
            let (index, found) = current.search(key)
            if !current.children.isEmpty {
                for child in current.children[0..<index] { rank += child.count }
            }
            rank += index
            if found {
                if !current.children.isEmpty { rank += current.children[index].count }
                return rank
            }
            if current.children.isEmpty { return rank }
            node = current.children[index]
        }
        return rank
    }

    /// The first entry in key order, or `nil` when empty.
    /// - Complexity: O(log n).
    public var first: Element? {
        var node = root
        while let current = node {
            if current.children.isEmpty { return current.entries.first }
            node = current.children.first
        }
        return nil
    }

    /// The last entry in key order, or `nil` when empty.
    /// - Complexity: O(log n).
    public var last: Element? {
        var node = root
        while let current = node {
            if current.children.isEmpty { return current.entries.last }
            node = current.children.last
        }
        return nil
    }

    // MARK: Changes

    /// Sets the value for `key`, inserting it or replacing the value it had.
    /// - Returns: the value it replaced, or `nil` when the key is new.
    /// - Complexity: O(log n) when the tree is not shared; otherwise O(log n) nodes are copied,
    ///   each of at most ``maxEntries`` entries.
    @discardableResult
    public mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        guard root != nil else {
            root = SortedTreeNode(entries: [(key, value)], children: [], count: 1, growing: false)
            return nil
        }
        if !isKnownUniquelyReferenced(&root!) { root = root!.copy() }
        let (replaced, split) = root!.insert(key, value)
        if let (separator, right) = split {
            let left = root!
            root = SortedTreeNode(
                entries: [separator], children: [left, right],
                count: left.count + right.count + 1, growing: true)
        }
        return replaced
    }

    /// Changes the value of `key` in place: `body` runs on the stored value, without copying it
    /// out and back, so a value that is itself a copy-on-write structure stays uniquely owned.
    /// - Returns: what `body` returned, or `nil` when the key is absent (`body` is not called).
    /// - Complexity: O(log n) comparisons plus `body`, with the same copying as
    ///   ``updateValue(_:forKey:)`` when the tree is shared.
    public mutating func modifyValue<Result>(forKey key: Key, _ body: (inout Value) -> Result) -> Result? {
        guard root != nil else { return nil }
        if !isKnownUniquelyReferenced(&root!) {
            guard self[key] != nil else { return nil }
            root = root!.copy()
        }
        return root!.modify(key, body)
    }

    /// Removes `key` and its value.
    /// - Returns: the removed value, or `nil` when the key was absent.
    /// - Complexity: O(log n), with the same copying as ``updateValue(_:forKey:)``.
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        guard root != nil else { return nil }
        if !isKnownUniquelyReferenced(&root!) {
            // A shared tree is copied only when the key is there to remove.
            guard self[key] != nil else { return nil }
            root = root!.copy()
        }
        guard let removed = root!.remove(key) else { return nil }
        if root!.entries.isEmpty {
            root = root!.children.first
        }
        return removed
    }

    /// A copy with `key` set to `value`.
    /// - Complexity: as ``updateValue(_:forKey:)``.
    public func updatingValue(_ value: Value, forKey key: Key) -> SortedTree {
        var copy = self
        copy.updateValue(value, forKey: key)
        return copy
    }

    /// A copy without `key`.
    /// - Complexity: as ``removeValue(forKey:)``.
    public func removingValue(forKey key: Key) -> SortedTree {
        var copy = self
        copy.removeValue(forKey: key)
        return copy
    }

    /// Builds a tree from entries sorted by key with no duplicates.
    ///
    /// The first ``maxEntries`` entries make the first leaf as they come, without a comparison
    /// (all of a small object: a query's answer, most nodes of real data); the rest arrive in
    /// ascending order, so every insertion lands at the end of the rightmost leaf and nodes are
    /// filled completely.
    /// - Precondition: `elements` are strictly increasing by key.
    /// - Complexity: O(n log n) comparisons for n > ``maxEntries``, none for fewer; no copying.
    public init(sorted elements: some Sequence<Element>) {
        self.init()
        var iterator = elements.makeIterator()
        var first: [Element] = []
        first.reserveCapacity(Swift.min(elements.underestimatedCount, Self.maxEntries))
        while first.count < Self.maxEntries, let element = iterator.next() { first.append(element) }
        guard !first.isEmpty else { return }
        root = SortedTreeNode(entries: first, children: [], count: first.count, growing: false)
        while let element = iterator.next() { updateValue(element.value, forKey: element.key) }
    }
}

extension SortedTree: Sequence {
    /// Iterates the entries in key order.
    public func makeIterator() -> SortedTreeCursor<Key, Value> {
        SortedTreeCursor(self, from: .start)
    }

    /// The entries in key order, starting at a position.
    /// - Complexity: O(log n) to start, O(1) amortised per entry.
    public func entries(from start: SortedTreeCursor<Key, Value>.Start) -> SortedTreeCursor<Key, Value> {
        SortedTreeCursor(self, from: start)
    }

    /// All keys in order.
    public var keys: [Key] { map(\.key) }
}

extension SortedTree: CustomStringConvertible {
    public var description: String {
        "[" + map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "]"
    }
}
