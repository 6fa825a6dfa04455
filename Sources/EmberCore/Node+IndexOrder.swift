extension Node {
    /// The children in the order of `index`.
    /// - Complexity: O(n) for key and priority order; O(n log n) for value and child order.
    public func children(in index: Index) -> [NamedNode] {
        switch index {
        case .key:
            return Array(children)
        case .priority:
            if let byPriority = priorityIndex {
                return byPriority.map { NamedNode($0.key.key, $0.value) }
            }
            return Array(children)
        case .value, .child:
            return children.sorted { index.compare($0, $1) < 0 }
        }
    }

    /// The first child in the order of `index`.
    /// - Complexity: O(log n) for key and priority order; O(n) for value and child order.
    public func firstChild(in index: Index) -> NamedNode? {
        switch index {
        case .key:
            return firstChild
        case .priority:
            if let entry = priorityIndex?.first { return NamedNode(entry.key.key, entry.value) }
            return firstChild
        case .value, .child:
            return extreme(in: index, wantsLowest: true, where: { _ in true })
        }
    }

    /// The last child in the order of `index`.
    /// - Complexity: O(log n) for key and priority order; O(n) for value and child order.
    public func lastChild(in index: Index) -> NamedNode? {
        switch index {
        case .key:
            return lastChild
        case .priority:
            if let entry = priorityIndex?.last { return NamedNode(entry.key.key, entry.value) }
            return lastChild
        case .value, .child:
            return extreme(in: index, wantsLowest: false, where: { _ in true })
        }
    }

    /// The child that comes right after `position` in the order of `index` (`position` need not
    /// be a child of this node: only its key and indexed value count).
    /// - Complexity: O(log n) for key and priority order; O(n) for value and child order.
    public func child(after position: NamedNode, in index: Index) -> NamedNode? {
        switch index {
        case .key:
            return childTree.entry(after: position.key).map { NamedNode($0.key, $0.value) }
        case .priority:
            if let byPriority = priorityIndex {
                return byPriority.entry(after: PriorityKey(position.node.priority, position.key)).map { NamedNode($0.key.key, $0.value) }
            }
            // No child has a priority: priority order is key order, and a position with a
            // priority sorts after every child without one.
            if position.node.priority != nil { return nil }
            return childTree.entry(after: position.key).map { NamedNode($0.key, $0.value) }
        case .value, .child:
            return extreme(in: index, wantsLowest: true, where: { index.compare($0, position) > 0 })
        }
    }

    /// The child that comes right before `position` in the order of `index`.
    /// - Complexity: O(log n) for key and priority order; O(n) for value and child order.
    public func child(before position: NamedNode, in index: Index) -> NamedNode? {
        switch index {
        case .key:
            return childTree.entry(before: position.key).map { NamedNode($0.key, $0.value) }
        case .priority:
            if let byPriority = priorityIndex {
                return byPriority.entry(before: PriorityKey(position.node.priority, position.key)).map { NamedNode($0.key.key, $0.value) }
            }
            if position.node.priority != nil { return lastChild }
            return childTree.entry(before: position.key).map { NamedNode($0.key, $0.value) }
        case .value, .child:
            return extreme(in: index, wantsLowest: false, where: { index.compare($0, position) < 0 })
        }
    }

    /// The lowest (or highest) child in `index` order among those satisfying `predicate`.
    private func extreme(in index: Index, wantsLowest: Bool, where predicate: (NamedNode) -> Bool) -> NamedNode? {
        var best: NamedNode?
        for child in children where predicate(child) {
            guard let current = best else {
                best = child
                continue
            }
            let order = index.compare(child, current)
            if wantsLowest ? order < 0 : order > 0 { best = child }
        }
        return best
    }
}
