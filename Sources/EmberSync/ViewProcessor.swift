import EmberCore

/// Computes a view's new caches and the child changes from an operation, given the pending
/// writes and any complete server data found above the view.
///
/// The caches change in place. A view that holds the only reference to its data therefore
/// updates a child in O(log n) without copying a B-tree node. Nothing here keeps the old caches
/// alive while the new ones are made: what the value change needs of the old event data is
/// taken first (``EventBefore``), and a ``CompleteChildSource`` holds only the server data.
struct ViewProcessor: Sendable {
    /// The view's filter.
    let filter: NodeFilter

    /// Applies `operation` to `cache` and returns the changes (with a value change when
    /// listeners must hear one).
    func apply(_ operation: Operation, to cache: inout ViewCache, writes: WriteTreeRef, completeCache: Node?) -> [Change] {
        let before = EventBefore(cache.eventCache)
        var accumulator: ChildChangeAccumulator? = ChildChangeAccumulator()
        switch operation {
        case .overwrite(.user, let path, let node):
            applyUserOverwrite(&cache, path, node, writes, completeCache, &accumulator)
        case .overwrite(let source, let path, let node):
            // Filter the server data for a tagged update, or when it was filtered before and
            // this is not a complete overwrite (which makes it whole again).
            let filterServerNode = source != .server || (cache.serverCache.isFiltered && !path.isEmpty)
            applyServerOverwrite(&cache, path, node, writes, completeCache, filterServerNode, &accumulator)
        case .merge(.user, let path, let changes):
            applyUserMerge(&cache, path, changes, writes, completeCache, &accumulator)
        case .merge(let source, let path, let changes):
            let filterServerNode = source != .server || cache.serverCache.isFiltered
            applyServerMerge(&cache, path, changes, writes, completeCache, filterServerNode, &accumulator)
        case .ackUserWrite(let path, let affected, .confirmed):
            ackUserWrite(&cache, path, affected, writes, completeCache, &accumulator)
        case .ackUserWrite(let path, _, .reverted):
            revertUserWrite(&cache, path, writes, completeCache, &accumulator)
        case .listenComplete(_, let path):
            listenComplete(&cache, path, writes, &accumulator)
        }
        var changes = accumulator.take()?.takeResult() ?? []
        if let value = before.valueChange(after: cache.eventCache, childChanges: changes.count) {
            changes.append(value)
        }
        return changes
    }

    /// What the value change needs to know of the event data before an operation, kept without
    /// holding on to a large node (which would make the update copy it).
    private struct EventBefore {
        let wasComplete: Bool
        /// The old complete event data when it is a leaf or empty; `nil` for an object.
        let scalar: Node?
        let priority: Priority?

        init(_ cache: CacheNode) {
            let old = cache.completeNode ?? .empty
            wasComplete = cache.isComplete
            scalar = old.isLeaf || old.isEmpty ? old : nil
            priority = old.priority
        }

        /// The value change, when the event data is complete and listeners must hear of it:
        /// after a child change, when it has just become complete, when a leaf or empty value
        /// changed, or when the root priority changed.
        func valueChange(after cache: CacheNode, childChanges: Int) -> Change? {
            guard let node = cache.completeNode else { return nil }
            let scalarChanged = (node.isLeaf || node.isEmpty) && scalar.map { $0 != node } ?? true
            if childChanges > 0 || !wasComplete || scalarChanged || node.priority != priority {
                return .value(node)
            }
            return nil
        }
    }

    // MARK: Server data

    private func generateEventCacheAfterServerEvent(
        _ cache: inout ViewCache, _ changePath: Path, _ writes: WriteTreeRef, _ source: CompleteChildSource,
        _ accumulator: inout ChildChangeAccumulator?
    ) {
        if writes.shadowingWrite(at: changePath) != nil {
            // A pending write shadows the change: listeners see nothing new.
            return
        }
        let wasComplete = cache.eventCache.isComplete
        if let childKey = changePath.front {
            if childKey.isPriority {
                precondition(changePath.count == 1, ".priority must be the last key of a path")
                if let updatedPriority = writes.eventCacheAfterServerOverwrite(changePath, existingServer: cache.serverCache.node) {
                    cache.eventCache.node = filter.updatePriority(cache.eventCache.node, updatedPriority)
                }
            } else {
                let childChangePath = changePath.popFront
                let newEventChild: Node?
                if cache.eventCache.isComplete(forChild: childKey) {
                    if let update = writes.eventCacheAfterServerOverwrite(changePath, existingServer: cache.serverCache.node) {
                        newEventChild = childChangePath.isEmpty
                            ? update : cache.eventCache.node.child(childKey).updating(at: childChangePath, update)
                    } else {
                        newEventChild = cache.eventCache.node.child(childKey)
                    }
                } else {
                    newEventChild = writes.completeChild(childKey, server: cache.serverCache)
                }
                if let newEventChild {
                    filter.updateChild(
                        &cache.eventCache.node, childKey, newEventChild, affectedPath: childChangePath, source: source,
                        &accumulator)
                }
            }
        } else {
            precondition(cache.serverCache.isComplete, "a change at the view's root needs complete server data")
            let complete: Node
            if cache.serverCache.isFiltered {
                // Filtered server data: apply writes to its complete children only, or a deep
                // write could show an incomplete child.
                let serverNode = cache.completeServerNode ?? .empty
                complete = writes.completeEventChildren(server: serverNode.isLeaf ? .empty : serverNode)
            } else {
                complete = writes.completeEventCache(server: cache.completeServerNode) ?? .empty
            }
            cache.eventCache.node = filter.updateFullNode(cache.eventCache.node, complete, &accumulator)
        }
        cache.eventCache.completeness = wasComplete || changePath.isEmpty ? .complete : .partial
        cache.eventCache.scope = filter.filtersNodes ? .filtered : .whole
    }

    private func applyServerOverwrite(
        _ cache: inout ViewCache, _ changePath: Path, _ changedSnap: Node, _ writes: WriteTreeRef, _ completeCache: Node?,
        _ filterServerNode: Bool, _ accumulator: inout ChildChangeAccumulator?
    ) {
        if applySharedServerOverwrite(&cache, changePath, changedSnap, writes, &accumulator) { return }
        let serverFilter = filterServerNode ? filter : filter.indexedFilter
        let wasComplete = cache.serverCache.isComplete
        var noChanges: ChildChangeAccumulator? = nil
        if changePath.isEmpty {
            cache.serverCache.node = serverFilter.updateFullNode(cache.serverCache.node, changedSnap, &noChanges)
        } else if serverFilter.filtersNodes && !cache.serverCache.isFiltered {
            // The server data must be filtered but was not yet: filter it whole.
            let old = cache.serverCache.node
            let updated = old.updating(at: changePath, changedSnap)
            cache.serverCache.node = serverFilter.updateFullNode(old, updated, &noChanges)
        } else {
            let childKey = changePath.front!
            if !cache.serverCache.isComplete(for: changePath) && changePath.count > 1 {
                // A deep update of a child this view does not know: it was meant for another
                // listener.
                return
            }
            let childChangePath = changePath.popFront
            let newChild = childChangePath.isEmpty
                ? changedSnap : cache.serverCache.node.child(childKey).updating(at: childChangePath, changedSnap)
            if childKey.isPriority {
                cache.serverCache.node = serverFilter.updatePriority(cache.serverCache.node, newChild)
            } else {
                serverFilter.updateChild(
                    &cache.serverCache.node, childKey, newChild, affectedPath: childChangePath, source: .none, &noChanges)
            }
        }
        cache.serverCache.completeness = wasComplete || changePath.isEmpty ? .complete : .partial
        cache.serverCache.scope = serverFilter.filtersNodes ? .filtered : .whole
        let source = CompleteChildSource.writes(writes, server: cache.serverCache, completeServer: completeCache)
        generateEventCacheAfterServerEvent(&cache, changePath, writes, source, &accumulator)
    }

    /// Applies a server overwrite once, to data the event and server caches share, when the
    /// event cache is the server cache: an unfiltered view (``NodeFilter/indexed(_:)``) whose
    /// client has no pending write, both caches complete and holding the same node. Firebase
    /// updates the server cache, then makes the event cache's child from it and the writes
    /// (`ViewProcessor.ts`, `applyServerOverwrite_` and `generateEventCacheAfterServerEvent_`):
    /// with no write, that child is the server's, and the event cache's update is the server
    /// cache's over again, recording the same changes. Here the server cache's update records
    /// them, and the event cache takes the result. The event cache lets go of the shared node
    /// first, so the update changes it in place rather than copying its path.
    /// - Returns: whether it applied the overwrite (else the general path must).
    /// - Complexity: O(log n) for a child of n children; O(n + m) for the whole node.
    private func applySharedServerOverwrite(
        _ cache: inout ViewCache, _ changePath: Path, _ changedSnap: Node, _ writes: WriteTreeRef,
        _ accumulator: inout ChildChangeAccumulator?
    ) -> Bool {
        guard case .indexed = filter, writes.tree.allWrites.isEmpty, changePath.front?.isPriority != true,
            cache.serverCache.isComplete, !cache.serverCache.isFiltered, cache.eventCache.isComplete, !cache.eventCache.isFiltered,
            cache.eventCache.node.isKnownEqual(to: cache.serverCache.node)
        else { return false }
        cache.eventCache.node = .empty
        if let childKey = changePath.front {
            let childChangePath = changePath.popFront
            let newChild = childChangePath.isEmpty
                ? changedSnap : cache.serverCache.node.child(childKey).updating(at: childChangePath, changedSnap)
            filter.updateChild(&cache.serverCache.node, childKey, newChild, affectedPath: childChangePath, source: .none, &accumulator)
        } else {
            cache.serverCache.node = filter.updateFullNode(cache.serverCache.node, changedSnap, &accumulator)
        }
        cache.eventCache.node = cache.serverCache.node
        return true
    }

    private func applyServerMerge(
        _ cache: inout ViewCache, _ path: Path, _ changedChildren: ImmutableTree<Node>, _ writes: WriteTreeRef,
        _ completeCache: Node?, _ filterServerNode: Bool, _ accumulator: inout ChildChangeAccumulator?
    ) {
        // Without any server data yet, the merge was meant for an earlier listen here; the
        // complete data follows.
        if cache.serverCache.node.isEmpty && !cache.serverCache.isComplete { return }
        let mergeTree = path.isEmpty ? changedChildren : ImmutableTree<Node>().settingTree(changedChildren, at: path)
        // Changes to children the view already holds go first, so that a limited window makes
        // room before new children compete for it. Both lists are made from the data before
        // the merge.
        let knowsEveryChild = cache.serverCache.isComplete && !cache.serverCache.isFiltered
        var held: [(ChildKey, Node)] = []
        var new: [(ChildKey, Node)] = []
        for (childKey, childTree) in mergeTree.children {
            let old = cache.serverCache.node.child(childKey)
            if !old.isEmpty {
                held.append((childKey, Self.applyMerge(childTree, to: old)))
            } else if knowsEveryChild || childTree.value != nil {
                // (A deep merge into a child the view does not know cannot be applied.)
                new.append((childKey, Self.applyMerge(childTree, to: .empty)))
            }
        }
        for (childKey, newChild) in held + new {
            applyServerOverwrite(
                &cache, Path(keys: [childKey]), newChild, writes, completeCache, filterServerNode, &accumulator)
        }
    }

    private static func applyMerge(_ merge: ImmutableTree<Node>, to node: Node) -> Node {
        var node = node
        merge.forEach { path, value in node.set(value, at: path) }
        return node
    }

    private func listenComplete(
        _ cache: inout ViewCache, _ path: Path, _ writes: WriteTreeRef, _ accumulator: inout ChildChangeAccumulator?
    ) {
        if path.isEmpty { cache.serverCache.completeness = .complete }
        generateEventCacheAfterServerEvent(&cache, path, writes, .none, &accumulator)
    }

    // MARK: User writes

    private func applyUserOverwrite(
        _ cache: inout ViewCache, _ changePath: Path, _ changedSnap: Node, _ writes: WriteTreeRef, _ completeCache: Node?,
        _ accumulator: inout ChildChangeAccumulator?
    ) {
        let source = CompleteChildSource.writes(writes, server: cache.serverCache, completeServer: completeCache)
        guard let childKey = changePath.front else {
            cache.eventCache.node = filter.updateFullNode(cache.eventCache.node, changedSnap, &accumulator)
            cache.eventCache.completeness = .complete
            cache.eventCache.scope = filter.filtersNodes ? .filtered : .whole
            return
        }
        if childKey.isPriority {
            cache.eventCache.node = filter.updatePriority(cache.eventCache.node, changedSnap)
            return
        }
        let childChangePath = changePath.popFront
        let oldChild = cache.eventCache.node.child(childKey)
        let newChild: Node
        if childChangePath.isEmpty {
            newChild = changedSnap
        } else if let childNode = cache.eventCache.isComplete(forChild: childKey) ? oldChild : source.completeChild(childKey) {
            if childChangePath.isPriority, childNode.child(at: childChangePath.parent!).isEmpty {
                // A priority on an empty node: if the node exists on the server, the server
                // sends the priority with it.
                newChild = childNode
            } else {
                newChild = childNode.updating(at: childChangePath, changedSnap)
            }
        } else {
            // No complete child is known.
            newChild = .empty
        }
        if oldChild == newChild { return }
        filter.updateChild(
            &cache.eventCache.node, childKey, newChild, affectedPath: childChangePath, source: source, &accumulator)
        cache.eventCache.scope = filter.filtersNodes ? .filtered : .whole
    }

    private func applyUserMerge(
        _ cache: inout ViewCache, _ path: Path, _ changedChildren: ImmutableTree<Node>, _ writes: WriteTreeRef,
        _ completeCache: Node?, _ accumulator: inout ChildChangeAccumulator?
    ) {
        // Children already in view first, so that a limited window makes room before new
        // children compete for it (both lists made from the data before the merge).
        var shown: [(Path, Node)] = []
        var unknown: [(Path, Node)] = []
        changedChildren.forEach { relative, node in
            let writePath = path.appending(relative)
            guard let front = writePath.front else { return }
            if cache.eventCache.isComplete(forChild: front) {
                shown.append((writePath, node))
            } else {
                unknown.append((writePath, node))
            }
        }
        for (writePath, node) in shown + unknown {
            applyUserOverwrite(&cache, writePath, node, writes, completeCache, &accumulator)
        }
    }

    private func ackUserWrite(
        _ cache: inout ViewCache, _ ackPath: Path, _ affected: ImmutableTree<Bool>, _ writes: WriteTreeRef,
        _ completeCache: Node?, _ accumulator: inout ChildChangeAccumulator?
    ) {
        if writes.shadowingWrite(at: ackPath) != nil { return }
        // Re-apply the server data at the written paths, no longer shadowed by the write.
        let filterServerNode = cache.serverCache.isFiltered
        if affected.value != nil {
            // An overwrite.
            if (ackPath.isEmpty && cache.serverCache.isComplete) || cache.serverCache.isComplete(for: ackPath) {
                let known = cache.serverCache.node.child(at: ackPath)
                applyServerOverwrite(&cache, ackPath, known, writes, completeCache, filterServerNode, &accumulator)
            } else if ackPath.isEmpty {
                // Acknowledged at this location without complete data: re-apply what is known
                // as a merge.
                var changes = ImmutableTree<Node>()
                for child in cache.serverCache.node.children {
                    changes = changes.setting(child.node, at: Path(keys: [child.key]))
                }
                applyServerMerge(&cache, ackPath, changes, writes, completeCache, filterServerNode, &accumulator)
            }
            return
        }
        // A merge.
        var changes = ImmutableTree<Node>()
        do {
            let server = cache.serverCache
            affected.forEach { mergePath, _ in
                let serverPath = ackPath.appending(mergePath)
                if server.isComplete(for: serverPath) {
                    changes = changes.setting(server.node.child(at: serverPath), at: mergePath)
                }
            }
        }
        applyServerMerge(&cache, ackPath, changes, writes, completeCache, filterServerNode, &accumulator)
    }

    private func revertUserWrite(
        _ cache: inout ViewCache, _ path: Path, _ writes: WriteTreeRef, _ completeServerCache: Node?,
        _ accumulator: inout ChildChangeAccumulator?
    ) {
        if writes.shadowingWrite(at: path) != nil { return }
        let source = CompleteChildSource.writes(writes, server: cache.serverCache, completeServer: completeServerCache)
        if path.isEmpty || path.front!.isPriority {
            let newNode: Node
            if let completeServer = cache.completeServerNode {
                newNode = writes.completeEventCache(server: completeServer) ?? .empty
            } else {
                newNode = writes.completeEventChildren(server: cache.serverCache.node)
            }
            cache.eventCache.node = filter.updateFullNode(cache.eventCache.node, newNode, &accumulator)
        } else {
            let childKey = path.front!
            var newChild = writes.completeChild(childKey, server: cache.serverCache)
            if newChild == nil && cache.serverCache.isComplete(forChild: childKey) {
                newChild = cache.eventCache.node.child(childKey)
            }
            if let newChild {
                filter.updateChild(
                    &cache.eventCache.node, childKey, newChild, affectedPath: path.popFront, source: source, &accumulator)
            } else if cache.eventCache.node.hasChild(childKey) {
                // No complete child is known: remove the one shown.
                filter.updateChild(
                    &cache.eventCache.node, childKey, .empty, affectedPath: path.popFront, source: source, &accumulator)
            }
            if cache.eventCache.node.isEmpty, let completeServer = cache.completeServerNode {
                // Every child write may have been reverted: the old value may have been a leaf.
                if let complete = writes.completeEventCache(server: completeServer), complete.isLeaf {
                    cache.eventCache.node = filter.updateFullNode(cache.eventCache.node, complete, &accumulator)
                }
            }
        }
        let complete = cache.serverCache.isComplete || writes.shadowingWrite(at: .root) != nil
        cache.eventCache.completeness = complete ? .complete : .partial
        cache.eventCache.scope = filter.filtersNodes ? .filtered : .whole
    }
}
