import EmberCore

/// Computes a view's new caches and the child changes from an operation: a pure function of
/// the old ``ViewCache``, the operation, the pending writes and any complete server data found
/// above the view.
struct ViewProcessor: Sendable {
    /// The view's filter.
    let filter: NodeFilter

    /// The new caches and the changes (with a value change when listeners must hear one).
    func apply(
        _ operation: Operation, to oldCache: ViewCache, writes: WriteTreeRef, completeCache: Node?
    ) -> (cache: ViewCache, changes: [Change]) {
        var accumulator: ChildChangeAccumulator? = ChildChangeAccumulator()
        let newCache: ViewCache
        switch operation {
        case .overwrite(.user, let path, let node):
            newCache = applyUserOverwrite(oldCache, path, node, writes, completeCache, &accumulator)
        case .overwrite(let source, let path, let node):
            // Filter the server data for a tagged update, or when it was filtered before and
            // this is not a complete overwrite (which makes it whole again).
            let filterServerNode = source != .server || (oldCache.serverCache.isFiltered && !path.isEmpty)
            newCache = applyServerOverwrite(oldCache, path, node, writes, completeCache, filterServerNode, &accumulator)
        case .merge(.user, let path, let changes):
            newCache = applyUserMerge(oldCache, path, changes, writes, completeCache, &accumulator)
        case .merge(let source, let path, let changes):
            let filterServerNode = source != .server || oldCache.serverCache.isFiltered
            newCache = applyServerMerge(oldCache, path, changes, writes, completeCache, filterServerNode, &accumulator)
        case .ackUserWrite(let path, let affected, .confirmed):
            newCache = ackUserWrite(oldCache, path, affected, writes, completeCache, &accumulator)
        case .ackUserWrite(let path, _, .reverted):
            newCache = revertUserWrite(oldCache, path, writes, completeCache, &accumulator)
        case .listenComplete(_, let path):
            newCache = listenComplete(oldCache, path, writes, &accumulator)
        }
        var changes = accumulator?.result ?? []
        if let value = valueChange(oldCache, newCache, childChanges: changes.count) {
            changes.append(value)
        }
        return (newCache, changes)
    }

    /// The value change, when the event data is complete and listeners must hear of it: after a
    /// child change, when it has just become complete, when a leaf or empty value changed, or
    /// when the root priority changed.
    private func valueChange(_ oldCache: ViewCache, _ newCache: ViewCache, childChanges: Int) -> Change? {
        guard let node = newCache.completeEventNode else { return nil }
        let old = oldCache.completeEventNode ?? .empty
        if childChanges > 0 || !oldCache.eventCache.isComplete
            || ((node.isLeaf || node.isEmpty) && node != old) || node.priority != old.priority
        {
            return .value(node)
        }
        return nil
    }

    // MARK: Server data

    private func generateEventCacheAfterServerEvent(
        _ cache: ViewCache, _ changePath: Path, _ writes: WriteTreeRef, _ source: CompleteChildSource,
        _ accumulator: inout ChildChangeAccumulator?
    ) -> ViewCache {
        let oldEventSnap = cache.eventCache
        if writes.shadowingWrite(at: changePath) != nil {
            // A pending write shadows the change: listeners see nothing new.
            return cache
        }
        let newEventNode: Node
        if let childKey = changePath.front {
            if childKey == .priority {
                precondition(changePath.count == 1, ".priority must be the last key of a path")
                if let updatedPriority = writes.eventCacheAfterServerOverwrite(changePath, existingServer: cache.serverCache.node) {
                    newEventNode = filter.updatePriority(oldEventSnap.node, updatedPriority)
                } else {
                    newEventNode = oldEventSnap.node
                }
            } else {
                let childChangePath = changePath.popFront
                let newEventChild: Node?
                if oldEventSnap.isComplete(forChild: childKey) {
                    if let update = writes.eventCacheAfterServerOverwrite(changePath, existingServer: cache.serverCache.node) {
                        newEventChild = oldEventSnap.node.child(childKey).updating(at: childChangePath, update)
                    } else {
                        newEventChild = oldEventSnap.node.child(childKey)
                    }
                } else {
                    newEventChild = writes.completeChild(childKey, server: cache.serverCache)
                }
                if let newEventChild {
                    newEventNode = filter.updateChild(
                        oldEventSnap.node, childKey, newEventChild, affectedPath: childChangePath, source: source, &accumulator)
                } else {
                    newEventNode = oldEventSnap.node
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
            newEventNode = filter.updateFullNode(oldEventSnap.node, complete, &accumulator)
        }
        return cache.updatingEvent(
            newEventNode, complete: oldEventSnap.isComplete || changePath.isEmpty, filtered: filter.filtersNodes)
    }

    private func applyServerOverwrite(
        _ oldCache: ViewCache, _ changePath: Path, _ changedSnap: Node, _ writes: WriteTreeRef, _ completeCache: Node?,
        _ filterServerNode: Bool, _ accumulator: inout ChildChangeAccumulator?
    ) -> ViewCache {
        let oldServerSnap = oldCache.serverCache
        let serverFilter = filterServerNode ? filter : filter.indexedFilter
        var noChanges: ChildChangeAccumulator? = nil
        let newServerNode: Node
        if changePath.isEmpty {
            newServerNode = serverFilter.updateFullNode(oldServerSnap.node, changedSnap, &noChanges)
        } else if serverFilter.filtersNodes && !oldServerSnap.isFiltered {
            // The server data must be filtered but was not yet: filter it whole.
            let updated = oldServerSnap.node.updating(at: changePath, changedSnap)
            newServerNode = serverFilter.updateFullNode(oldServerSnap.node, updated, &noChanges)
        } else {
            let childKey = changePath.front!
            if !oldServerSnap.isComplete(for: changePath) && changePath.count > 1 {
                // A deep update of a child this view does not know: it was meant for another
                // listener.
                return oldCache
            }
            let childChangePath = changePath.popFront
            let newChild = oldServerSnap.node.child(childKey).updating(at: childChangePath, changedSnap)
            if childKey == .priority {
                newServerNode = serverFilter.updatePriority(oldServerSnap.node, newChild)
            } else {
                newServerNode = serverFilter.updateChild(
                    oldServerSnap.node, childKey, newChild, affectedPath: childChangePath, source: .none, &noChanges)
            }
        }
        let newCache = oldCache.updatingServer(
            newServerNode, complete: oldServerSnap.isComplete || changePath.isEmpty, filtered: serverFilter.filtersNodes)
        let source = CompleteChildSource.writes(writes, newCache, completeServer: completeCache)
        return generateEventCacheAfterServerEvent(newCache, changePath, writes, source, &accumulator)
    }

    private func applyServerMerge(
        _ cache: ViewCache, _ path: Path, _ changedChildren: ImmutableTree<Node>, _ writes: WriteTreeRef,
        _ completeCache: Node?, _ filterServerNode: Bool, _ accumulator: inout ChildChangeAccumulator?
    ) -> ViewCache {
        // Without any server data yet, the merge was meant for an earlier listen here; the
        // complete data follows.
        if cache.serverCache.node.isEmpty && !cache.serverCache.isComplete { return cache }
        let mergeTree = path.isEmpty ? changedChildren : ImmutableTree<Node>().settingTree(changedChildren, at: path)
        let serverNode = cache.serverCache.node
        var current = cache
        // Changes to children the view already holds go first, so that a limited window makes
        // room before new children compete for it.
        for (childKey, childTree) in mergeTree.children where serverNode.hasChild(childKey) {
            let newChild = Self.applyMerge(childTree, to: serverNode.child(childKey))
            current = applyServerOverwrite(
                current, Path(keys: [childKey]), newChild, writes, completeCache, filterServerNode, &accumulator)
        }
        for (childKey, childTree) in mergeTree.children where !serverNode.hasChild(childKey) {
            // A deep merge into a child the view does not know cannot be applied.
            let isUnknownDeepMerge = !cache.serverCache.isComplete(forChild: childKey) && childTree.value == nil
            if isUnknownDeepMerge { continue }
            let newChild = Self.applyMerge(childTree, to: serverNode.child(childKey))
            current = applyServerOverwrite(
                current, Path(keys: [childKey]), newChild, writes, completeCache, filterServerNode, &accumulator)
        }
        return current
    }

    private static func applyMerge(_ merge: ImmutableTree<Node>, to node: Node) -> Node {
        var node = node
        merge.forEach { path, value in node = node.updating(at: path, value) }
        return node
    }

    private func listenComplete(
        _ cache: ViewCache, _ path: Path, _ writes: WriteTreeRef, _ accumulator: inout ChildChangeAccumulator?
    ) -> ViewCache {
        let server = cache.serverCache
        let newCache = cache.updatingServer(
            server.node, complete: server.isComplete || path.isEmpty, filtered: server.isFiltered)
        return generateEventCacheAfterServerEvent(newCache, path, writes, .none, &accumulator)
    }

    // MARK: User writes

    private func applyUserOverwrite(
        _ oldCache: ViewCache, _ changePath: Path, _ changedSnap: Node, _ writes: WriteTreeRef, _ completeCache: Node?,
        _ accumulator: inout ChildChangeAccumulator?
    ) -> ViewCache {
        let oldEventSnap = oldCache.eventCache
        let source = CompleteChildSource.writes(writes, oldCache, completeServer: completeCache)
        guard let childKey = changePath.front else {
            let newEventNode = filter.updateFullNode(oldEventSnap.node, changedSnap, &accumulator)
            return oldCache.updatingEvent(newEventNode, complete: true, filtered: filter.filtersNodes)
        }
        if childKey == .priority {
            let newEventNode = filter.updatePriority(oldEventSnap.node, changedSnap)
            return oldCache.updatingEvent(newEventNode, complete: oldEventSnap.isComplete, filtered: oldEventSnap.isFiltered)
        }
        let childChangePath = changePath.popFront
        let oldChild = oldEventSnap.node.child(childKey)
        let newChild: Node
        if childChangePath.isEmpty {
            newChild = changedSnap
        } else if let childNode = source.completeChild(childKey) {
            if childChangePath.back == .priority, childNode.child(at: childChangePath.parent!).isEmpty {
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
        if oldChild == newChild { return oldCache }
        let newEventNode = filter.updateChild(
            oldEventSnap.node, childKey, newChild, affectedPath: childChangePath, source: source, &accumulator)
        return oldCache.updatingEvent(newEventNode, complete: oldEventSnap.isComplete, filtered: filter.filtersNodes)
    }

    private func applyUserMerge(
        _ cache: ViewCache, _ path: Path, _ changedChildren: ImmutableTree<Node>, _ writes: WriteTreeRef,
        _ completeCache: Node?, _ accumulator: inout ChildChangeAccumulator?
    ) -> ViewCache {
        // Children already in view first, so that a limited window makes room before new
        // children compete for it.
        var current = cache
        changedChildren.forEach { relative, node in
            let writePath = path.appending(relative)
            if let front = writePath.front, cache.eventCache.isComplete(forChild: front) {
                current = applyUserOverwrite(current, writePath, node, writes, completeCache, &accumulator)
            }
        }
        changedChildren.forEach { relative, node in
            let writePath = path.appending(relative)
            if let front = writePath.front, !cache.eventCache.isComplete(forChild: front) {
                current = applyUserOverwrite(current, writePath, node, writes, completeCache, &accumulator)
            }
        }
        return current
    }

    private func ackUserWrite(
        _ cache: ViewCache, _ ackPath: Path, _ affected: ImmutableTree<Bool>, _ writes: WriteTreeRef,
        _ completeCache: Node?, _ accumulator: inout ChildChangeAccumulator?
    ) -> ViewCache {
        if writes.shadowingWrite(at: ackPath) != nil { return cache }
        // Re-apply the server data at the written paths, no longer shadowed by the write.
        let filterServerNode = cache.serverCache.isFiltered
        let server = cache.serverCache
        if affected.value != nil {
            // An overwrite.
            if (ackPath.isEmpty && server.isComplete) || server.isComplete(for: ackPath) {
                return applyServerOverwrite(
                    cache, ackPath, server.node.child(at: ackPath), writes, completeCache, filterServerNode, &accumulator)
            }
            if ackPath.isEmpty {
                // Acknowledged at this location without complete data: re-apply what is known
                // as a merge.
                var changes = ImmutableTree<Node>()
                for child in server.node.children {
                    changes = changes.setting(child.node, at: Path(keys: [child.key]))
                }
                return applyServerMerge(cache, ackPath, changes, writes, completeCache, filterServerNode, &accumulator)
            }
            return cache
        }
        // A merge.
        var changes = ImmutableTree<Node>()
        affected.forEach { mergePath, _ in
            let serverPath = ackPath.appending(mergePath)
            if server.isComplete(for: serverPath) {
                changes = changes.setting(server.node.child(at: serverPath), at: mergePath)
            }
        }
        return applyServerMerge(cache, ackPath, changes, writes, completeCache, filterServerNode, &accumulator)
    }

    private func revertUserWrite(
        _ cache: ViewCache, _ path: Path, _ writes: WriteTreeRef, _ completeServerCache: Node?,
        _ accumulator: inout ChildChangeAccumulator?
    ) -> ViewCache {
        if writes.shadowingWrite(at: path) != nil { return cache }
        let source = CompleteChildSource.writes(writes, cache, completeServer: completeServerCache)
        let oldEventNode = cache.eventCache.node
        var newEventNode: Node
        if path.isEmpty || path.front == .priority {
            let newNode: Node
            if let completeServer = cache.completeServerNode {
                newNode = writes.completeEventCache(server: completeServer) ?? .empty
            } else {
                newNode = writes.completeEventChildren(server: cache.serverCache.node)
            }
            newEventNode = filter.updateFullNode(oldEventNode, newNode, &accumulator)
        } else {
            let childKey = path.front!
            var newChild = writes.completeChild(childKey, server: cache.serverCache)
            if newChild == nil && cache.serverCache.isComplete(forChild: childKey) {
                newChild = oldEventNode.child(childKey)
            }
            if let newChild {
                newEventNode = filter.updateChild(
                    oldEventNode, childKey, newChild, affectedPath: path.popFront, source: source, &accumulator)
            } else if oldEventNode.hasChild(childKey) {
                // No complete child is known: remove the one shown.
                newEventNode = filter.updateChild(
                    oldEventNode, childKey, .empty, affectedPath: path.popFront, source: source, &accumulator)
            } else {
                newEventNode = oldEventNode
            }
            if newEventNode.isEmpty, let completeServer = cache.completeServerNode {
                // Every child write may have been reverted: the old value may have been a leaf.
                if let complete = writes.completeEventCache(server: completeServer), complete.isLeaf {
                    newEventNode = filter.updateFullNode(newEventNode, complete, &accumulator)
                }
            }
        }
        let complete = cache.serverCache.isComplete || writes.shadowingWrite(at: .root) != nil
        return cache.updatingEvent(newEventNode, complete: complete, filtered: filter.filtersNodes)
    }
}
