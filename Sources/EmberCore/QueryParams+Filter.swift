extension QueryParams {
    /// Whether a child lies inside the query's range (the limit aside).
    /// - Complexity: O(1) comparisons (plus the child-path look-up for `orderByChild`).
    public func isInRange(_ child: NamedNode) -> Bool {
        isAfterStart(child) && isBeforeEnd(child)
    }

    func isAfterStart(_ child: NamedNode) -> Bool {
        switch start {
        case nil: true
        case .including(let position)?: index.compare(child, to: position) >= 0
        case .excluding(let position)?: index.compare(child, to: position) > 0
        }
    }

    func isBeforeEnd(_ child: NamedNode) -> Bool {
        switch end {
        case nil: true
        case .including(let position)?: index.compare(child, to: position) <= 0
        case .excluding(let position)?: index.compare(child, to: position) < 0
        }
    }

    /// The children of `node` that the query returns, in the query's order.
    ///
    /// - Complexity: O(log n + k) for k results under key order, and under priority order (the
    ///   default). Under value or child order such queries are answered by a scan: O(n log k)
    ///   with a limit of k, O(n log n) without one.
    public func filter(_ node: Node) -> [NamedNode] {
        switch index {
        case .key:
            return walk(node.childTree, { NamedNode($0.key, $0.value) }, position: { .key($0) })
        case .priority:
            if let byPriority = node.priorityIndex {
                return walk(byPriority, { NamedNode($0.key.key, $0.value) }, position: { .priorityKey($0) })
            }
            // No child has a priority: priority order is key order.
            return walk(node.childTree, { NamedNode($0.key, $0.value) }, position: { .key($0) })
        case .value, .child:
            guard let limit else {
                var results = node.children.filter(isInRange)
                results.sort { index.compare($0, $1) < 0 }
                return results
            }
            return select(limit, from: node)
        }
    }

    /// The first or last `limit` children of `node` in range, in the query's order, kept in a
    /// sorted array of at most `limit.count` while scanning: a child that does not beat the
    /// worst one kept costs one comparison, so a small window over a large list is found
    /// without sorting the list.
    /// - Complexity: O(n log k) comparisons for n children and a limit of k (O(n) when few
    ///   children enter the window, as in a list that is not sorted by the query's order).
    private func select(_ limit: QueryLimit, from node: Node) -> [NamedNode] {
        let count: Int
        let keepsLargest: Bool
        switch limit {
        case .first(let first): (count, keepsLargest) = (first, false)
        case .last(let last): (count, keepsLargest) = (last, true)
        }
        guard count > 0 else { return [] }
        var kept: [NamedNode] = []
        kept.reserveCapacity(count + 1)
        for child in node.children where isInRange(child) {
            if kept.count == count {
                // Full: a child no better than the worst kept one stays out.
                if keepsLargest ? index.compare(child, kept[0]) <= 0 : index.compare(child, kept[count - 1]) >= 0 {
                    continue
                }
            }
            var low = 0
            var high = kept.count
            while low < high {
                let middle = (low + high) / 2
                if index.compare(kept[middle], child) < 0 { low = middle + 1 } else { high = middle }
            }
            kept.insert(child, at: low)
            if kept.count > count {
                if keepsLargest { kept.removeFirst() } else { kept.removeLast() }
            }
        }
        return kept
    }

    /// A node holding just the children the query returns (without the priority of `node`).
    /// - Complexity: as ``filter(_:)``, plus O(k log k) to build the node.
    public func filteredNode(_ node: Node) -> Node {
        if loadsAllData { return node }
        return Node(children: filter(node).map { ($0.key, $0.node) })
    }

    /// Walks a sorted tree between the bounds, from the end the limit says, for key and
    /// priority order, whose trees are sorted exactly in the query's order.
    private func walk<Key: TreeKey, Value>(
        _ tree: SortedTree<Key, Value>,
        _ named: ((key: Key, value: Value)) -> NamedNode,
        position key: @escaping (Key) -> TreeEntryPosition
    ) -> [NamedNode] {
        // The sorted tree's order is the index's order, so "after the start" and "before the
        // end" are monotone over it and can be found by binary search.
        let afterStart: (Key) -> Bool = { isAfterStart(self.probe(key($0))) }
        let beforeEnd: (Key) -> Bool = { isBeforeEnd(self.probe(key($0))) }
        var results: [NamedNode] = []
        switch limit {
        case .last(let count)?:
            var cursor = tree.entries(from: end == nil ? .end : .lastWhere(beforeEnd))
            while results.count < count, let entry = cursor.next() {
                let child = named(entry)
                guard isAfterStart(child) else { break }
                results.append(child)
            }
            results.reverse()
        default:
            let maximum = limit?.count ?? Int.max
            var cursor = tree.entries(from: start == nil ? .start : .firstWhere(afterStart))
            while results.count < maximum, let entry = cursor.next() {
                let child = named(entry)
                guard isBeforeEnd(child) else { break }
                results.append(child)
            }
        }
        return results
    }

    /// A stand-in child with the key and (for priority order) the priority of an index entry,
    /// enough to compare it with the bounds.
    private func probe(_ position: TreeEntryPosition) -> NamedNode {
        switch position {
        case .key(let key):
            return NamedNode(key, .empty)
        case .priorityKey(let entry):
            return NamedNode(entry.key, entry.priority.map { Node(.bool(true), priority: $0) } ?? .empty)
        }
    }
}

/// The sort key of an entry of the tree a query walks.
enum TreeEntryPosition {
    case key(ChildKey)
    case priorityKey(PriorityKey)
}
