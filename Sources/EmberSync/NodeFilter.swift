import EmberCore

/// How a view keeps its data in the shape of its query: every child in the query's order
/// (`indexed`), the children in a range (`ranged`), or the first or last n children of a range
/// (`limited`), and which changes that makes to the children.
enum NodeFilter: Sendable {
    /// Every child; the query loads all data.
    case indexed(Index)
    /// The children inside the query's range.
    case ranged(QueryParams)
    /// The first or last children of the range, as many as the limit.
    case limited(QueryParams, QueryLimit)

    /// The filter for a query.
    init(_ params: QueryParams) {
        if let limit = params.limit {
            self = .limited(params, limit)
        } else if params.loadsAllData {
            self = .indexed(params.index)
        } else {
            self = .ranged(params)
        }
    }

    /// The order.
    var index: Index {
        switch self {
        case .indexed(let index): index
        case .ranged(let params), .limited(let params, _): params.index
        }
    }

    /// Whether the filter may drop children.
    var filtersNodes: Bool {
        if case .indexed = self { return false }
        return true
    }

    /// The same order without range or limit.
    var indexedFilter: NodeFilter { .indexed(index) }

    /// Whether `child` lies in the filter's range (always, without one).
    func matches(_ child: NamedNode) -> Bool {
        switch self {
        case .indexed: true
        case .ranged(let params), .limited(let params, _): params.isInRange(child)
        }
    }

    /// Sets the child `key` of `snap` to `newChild` (empty: removed), as far as the filter
    /// keeps it, recording the changes. `snap` changes in place: a view that holds the only
    /// reference to its cache copies none of it.
    /// - Complexity: O(log n); a limited window refilled from the server data costs O(log m)
    ///   in the size m of that data for key and priority order.
    func updateChild(
        _ snap: inout Node, _ key: ChildKey, _ newChild: Node, affectedPath: Path, source: CompleteChildSource,
        _ accumulator: inout ChildChangeAccumulator?
    ) {
        switch self {
        case .indexed:
            Self.indexedUpdateChild(&snap, key, newChild, affectedPath: affectedPath, &accumulator)
        case .ranged(let params):
            let kept = params.isInRange(NamedNode(key, newChild)) ? newChild : .empty
            Self.indexedUpdateChild(&snap, key, kept, affectedPath: affectedPath, &accumulator)
        case .limited(let params, let limit):
            let kept = params.isInRange(NamedNode(key, newChild)) ? newChild : .empty
            if snap.child(key) == kept { return }
            if snap.childCount < limit.count {
                Self.indexedUpdateChild(&snap, key, kept, affectedPath: affectedPath, &accumulator)
            } else {
                fullLimitUpdateChild(&snap, key, kept, params: params, limit: limit, source: source, &accumulator)
            }
        }
    }

    /// `newSnap` as far as the filter keeps it, recording the changes from `oldSnap`.
    /// - Complexity: O(n + m) to compare the children; building a limited window from n
    ///   children costs O(log n + k) in key and priority order.
    func updateFullNode(_ oldSnap: Node, _ newSnap: Node, _ accumulator: inout ChildChangeAccumulator?) -> Node {
        let filtered: Node
        switch self {
        case .indexed:
            filtered = newSnap
        case .ranged(let params), .limited(let params, _):
            // Queries have no priority of their own, and a leaf has no children to keep.
            if newSnap.isLeaf || newSnap.isEmpty {
                filtered = .empty
            } else {
                filtered = Node(children: params.filter(newSnap).map { ($0.key, $0.node) })
            }
        }
        return Self.indexedUpdateFullNode(oldSnap, filtered, &accumulator)
    }

    /// `oldSnap` with a new priority, where the filter keeps priorities.
    func updatePriority(_ oldSnap: Node, _ newPriority: Node) -> Node {
        switch self {
        case .indexed:
            if oldSnap.isEmpty { return .empty }
            return oldSnap.updatingChild(.priority, newPriority)
        case .ranged, .limited:
            // Queries have no priority of their own.
            return oldSnap
        }
    }

    // MARK: Indexed

    private static func indexedUpdateChild(
        _ snap: inout Node, _ key: ChildKey, _ newChild: Node, affectedPath: Path,
        _ accumulator: inout ChildChangeAccumulator?
    ) {
        let oldChild = snap.child(key)
        if oldChild.child(at: affectedPath) == newChild.child(at: affectedPath) && oldChild.isEmpty == newChild.isEmpty {
            // Nothing changed where the change happened. (A child may still enter or leave when
            // the affected path is empty on both sides, hence the second test.)
            return
        }
        if newChild.isEmpty {
            if !oldChild.isEmpty { accumulator?.track(.childRemoved(key, old: oldChild)) }
        } else if oldChild.isEmpty {
            accumulator?.track(.childAdded(key, newChild))
        } else {
            accumulator?.track(.childChanged(key, newChild, old: oldChild))
        }
        if snap.isLeaf && newChild.isEmpty { return }
        snap.setChild(key, newChild)
    }

    private static func indexedUpdateFullNode(_ oldSnap: Node, _ newSnap: Node, _ accumulator: inout ChildChangeAccumulator?) -> Node {
        guard let current = accumulator else { return newSnap }
        var changes: [Change] = []
        for child in oldSnap.children where !newSnap.hasChild(child.key) {
            changes.append(.childRemoved(child.key, old: child.node))
        }
        for child in newSnap.children {
            let old = oldSnap.child(child.key)
            if old.isEmpty {
                changes.append(.childAdded(child.key, child.node))
            } else if old != child.node {
                changes.append(.childChanged(child.key, child.node, old: old))
            }
        }
        if current.isEmpty {
            // Each child appears once: no folding needed, and no hashing of every key.
            accumulator = ChildChangeAccumulator(distinct: changes)
        } else {
            for change in changes { accumulator?.track(change) }
        }
        return newSnap
    }

    // MARK: Limited

    /// A change to a full window: the child may stay, leave (and the next child outside the
    /// window come in), or push the window's boundary child out.
    private func fullLimitUpdateChild(
        _ snap: inout Node, _ key: ChildKey, _ childSnap: Node, params: QueryParams, limit: QueryLimit,
        source: CompleteChildSource, _ accumulator: inout ChildChangeAccumulator?
    ) {
        let index = params.index
        let reverse: Bool
        if case .last = limit { reverse = true } else { reverse = false }
        // Order from the window's anchored end outwards.
        let compare: (NamedNode, NamedNode) -> Int = reverse ? { index.compare($1, $0) } : { index.compare($0, $1) }
        let newChild = NamedNode(key, childSnap)
        guard let boundary = reverse ? snap.firstChild(in: index) : snap.lastChild(in: index) else { return }
        let inRange = params.isInRange(newChild)
        if snap.hasChild(key) {
            let oldChild = snap.child(key)
            var next = source.child(after: boundary, in: index, reverse: reverse)
            while let candidate = next, candidate.key == key || snap.hasChild(candidate.key) {
                // A child changed by the same merge but not yet applied to the window: skip it,
                // it is handled when its own change comes.
                next = source.child(after: candidate, in: index, reverse: reverse)
            }
            let compareNext = next.map { compare($0, newChild) } ?? 1
            if inRange && !childSnap.isEmpty && compareNext >= 0 {
                accumulator?.track(.childChanged(key, childSnap, old: oldChild))
                snap.setChild(key, childSnap)
                return
            }
            accumulator?.track(.childRemoved(key, old: oldChild))
            snap.setChild(key, .empty)
            if let next, params.isInRange(next) {
                accumulator?.track(.childAdded(next.key, next.node))
                snap.setChild(next.key, next.node)
            }
            return
        }
        if childSnap.isEmpty {
            // A child outside the window went away: nothing to do.
            return
        }
        if inRange && compare(boundary, newChild) >= 0 {
            accumulator?.track(.childRemoved(boundary.key, old: boundary.node))
            accumulator?.track(.childAdded(key, childSnap))
            snap.setChild(key, childSnap)
            snap.setChild(boundary.key, .empty)
        }
    }
}
