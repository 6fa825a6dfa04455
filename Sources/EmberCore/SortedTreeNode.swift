/// A node of a ``SortedTree``: sorted entries, and for inner nodes one more child than entries.
///
/// Inner node layout: `children[0] < entries[0] < children[1] < ... < entries[k-1] < children[k]`.
/// All leaves are at the same depth. `count` is the number of entries in the whole subtree.
/// A node is mutated only while the tree that owns it holds the only reference to it.
///
/// Its properties skip the runtime's dynamic exclusivity checks (`@exclusivity(unchecked)`):
/// a node is read by searches on every lookup, and the checks cost more than the search. No
/// access to a node can overlap another that changes it, since only the sole owner changes
/// it, one operation at a time; debug builds of the tests exercise every path.
@usableFromInline
final class SortedTreeNode<Key: TreeKey, Value: Sendable>: @unchecked Sendable {
    @exclusivity(unchecked) @usableFromInline var entries: [(key: Key, value: Value)]
    @exclusivity(unchecked) @usableFromInline var children: [SortedTreeNode]
    @exclusivity(unchecked) @usableFromInline var count: Int

    /// A node holding `entries` (and `children`, for an inner node).
    /// - Parameter growing: whether the node belongs to a tree that outgrew one node (made by a
    ///   split, or a new root above one): it gets room for one entry past the maximum (a node
    ///   overflows by one before it splits), so that its arrays never double their capacity on
    ///   the way to its own split (ascending inserts append to the right node a split makes).
    ///   Otherwise (the single node of a small object: a user, a message, most nodes of real
    ///   data) it keeps what it holds and grows as arrays do: reserving the maximum for every
    ///   node made the 300,000 small objects of a 42 MB export take 560 MB.
    @usableFromInline
    init(entries: [(key: Key, value: Value)], children: [SortedTreeNode], count: Int, growing: Bool) {
        self.entries = entries
        self.children = children
        self.count = count
        if growing {
            let capacity = SortedTree<Key, Value>.maxEntries + 1
            self.entries.reserveCapacity(capacity)
            if !children.isEmpty { self.children.reserveCapacity(capacity + 1) }
        }
    }

    /// A shallow copy: the entry and child arrays are shared until either node changes them
    /// (a node of a tree that outgrew one node reserves its room at once, as it was made).
    func copy() -> SortedTreeNode {
        SortedTreeNode(
            entries: entries, children: children, count: count,
            growing: entries.capacity > SortedTree<Key, Value>.maxEntries || !children.isEmpty)
    }

    @inlinable
    var isLeaf: Bool { children.isEmpty }

    /// Binary search: the index of the first entry not less than `key`, and whether it is equal.
    /// - Complexity: O(log m) comparisons for m entries.
    @inlinable
    func search(_ key: Key) -> (index: Int, found: Bool) {
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            let order = Key.compare(entries[middle].key, key)
            if order < 0 {
                low = middle + 1
            } else if order > 0 {
                high = middle
            } else {
                return (middle, true)
            }
        }
        return (low, false)
    }

    /// Makes `children[index]` uniquely owned by this node, copying it if it is shared.
    func uniqueChild(_ index: Int) -> SortedTreeNode {
        if !isKnownUniquelyReferenced(&children[index]) {
            children[index] = children[index].copy()
        }
        return children[index]
    }

    /// Calls `body` with the value of `key` in place, or returns `nil` when the key is absent.
    /// The node must be uniquely owned; the nodes on the way down are made so.
    /// - Complexity: O(log n) comparisons, plus `body`.
    func modify<Result>(_ key: Key, _ body: (inout Value) -> Result) -> Result? {
        let (index, found) = search(key)
        if found { return body(&entries[index].value) }
        if isLeaf { return nil }
        return uniqueChild(index).modify(key, body)
    }

    // MARK: Insertion

    /// Inserts or replaces; returns the replaced value and, when this node overflowed, the
    /// separator and new right sibling that the parent must take.
    func insert(_ key: Key, _ value: Value) -> (replaced: Value?, split: ((key: Key, value: Value), SortedTreeNode)?) {
        let (index, found) = search(key)
        if found {
            let old = entries[index].value
            entries[index].value = value
            return (old, nil)
        }
        if isLeaf {
            entries.insert((key, value), at: index)
            count += 1
        } else {
            let child = uniqueChild(index)
            let (replaced, split) = child.insert(key, value)
            if replaced != nil { return (replaced, nil) }
            count += 1
            if let (separator, right) = split {
                entries.insert(separator, at: index)
                children.insert(right, at: index + 1)
            }
        }
        guard entries.count > SortedTree<Key, Value>.maxEntries else { return (nil, nil) }
        return (nil, split(grewAtEnd: index == entries.count - 1))
    }

    /// Splits an overfull node. After growth at the end (ascending inserts) only the last entry
    /// moves right, so the left node stays full; otherwise the node splits in half.
    private func split(grewAtEnd: Bool) -> ((key: Key, value: Value), SortedTreeNode) {
        let middle = grewAtEnd ? entries.count - 2 : entries.count / 2
        let separator = entries[middle]
        let rightEntries = Array(entries[(middle + 1)...])
        var rightChildren: [SortedTreeNode] = []
        var rightCount = rightEntries.count
        if !isLeaf {
            rightChildren = Array(children[(middle + 1)...])
            for child in rightChildren { rightCount += child.count }
            children.removeSubrange((middle + 1)...)
        }
        entries.removeSubrange(middle...)
        count -= rightCount + 1
        return (separator, SortedTreeNode(entries: rightEntries, children: rightChildren, count: rightCount, growing: true))
    }

    // MARK: Removal

    /// Removes `key` and returns its value, or returns `nil` (changing nothing) when it is not
    /// in this subtree. Children that become underfull are rebalanced; this node may become
    /// underfull (the parent fixes it).
    /// - Complexity: O(log n) comparisons.
    func remove(_ key: Key) -> Value? {
        let (index, found) = search(key)
        if isLeaf {
            guard found else { return nil }
            count -= 1
            return entries.remove(at: index).value
        }
        let removed: Value
        if found {
            // Replace by the predecessor: the last entry of the left subtree.
            removed = entries[index].value
            entries[index] = uniqueChild(index).removeLast()
        } else {
            guard let value = uniqueChild(index).remove(key) else { return nil }
            removed = value
        }
        count -= 1
        rebalance(child: index)
        return removed
    }

    /// Removes and returns the last entry of this subtree.
    func removeLast() -> (key: Key, value: Value) {
        count -= 1
        if isLeaf { return entries.removeLast() }
        let last = children.count - 1
        let element = uniqueChild(last).removeLast()
        rebalance(child: last)
        return element
    }

    /// Restores the minimum fill of `children[index]` by merging with or borrowing from a
    /// neighbour.
    private func rebalance(child index: Int) {
        let minimum = SortedTree<Key, Value>.minEntries
        guard children[index].entries.count < minimum else { return }
        // Pair the child with its right neighbour, or its left one when it is the last.
        let leftIndex = index < children.count - 1 ? index : index - 1
        guard leftIndex >= 0 else { return }
        let left = uniqueChild(leftIndex)
        let right = uniqueChild(leftIndex + 1)
        let separator = entries[leftIndex]
        let combined = left.entries.count + right.entries.count + 1
        if combined <= SortedTree<Key, Value>.maxEntries {
            // Merge right and the separator into left.
            left.entries.append(separator)
            left.entries.append(contentsOf: right.entries)
            left.children.append(contentsOf: right.children)
            left.count += right.count + 1
            entries.remove(at: leftIndex)
            children.remove(at: leftIndex + 1)
            return
        }
        // Redistribute so that both halves hold about the same number of entries.
        let target = combined / 2
        while left.entries.count < target {
            left.entries.append(entries[leftIndex])
            left.count += 1
            entries[leftIndex] = right.entries.removeFirst()
            right.count -= 1
            if !right.isLeaf {
                let moved = right.children.removeFirst()
                left.children.append(moved)
                left.count += moved.count
                right.count -= moved.count
            }
        }
        while left.entries.count > target {
            right.entries.insert(entries[leftIndex], at: 0)
            right.count += 1
            entries[leftIndex] = left.entries.removeLast()
            left.count -= 1
            if !left.isLeaf {
                let moved = left.children.removeLast()
                right.children.insert(moved, at: 0)
                right.count += moved.count
                left.count -= moved.count
            }
        }
    }
}
