import EmberCore

/// Where a filter finds children from outside a view's window: to refill a limited window, or
/// to complete a child that a deep write touches.
enum CompleteChildSource {
    /// No other source (server updates to the server cache itself).
    case none
    /// The pending writes over the view's caches, or over a complete server node found at or
    /// above the view.
    case writes(WriteTreeRef, ViewCache, completeServer: Node?)

    /// The complete event data of the child `key`, if it can be known.
    /// - Complexity: O(d log n).
    func completeChild(_ key: ChildKey) -> Node? {
        guard case .writes(let writes, let cache, let completeServer) = self else { return nil }
        if cache.eventCache.isComplete(forChild: key) {
            return cache.eventCache.node.child(key)
        }
        let server = completeServer.map { CacheNode($0, .complete, .whole) } ?? cache.serverCache
        return writes.completeChild(key, server: server)
    }

    /// The child after `position` in `index` order (before it when `reverse`).
    /// - Complexity: O(log n) for key and priority order.
    func child(after position: NamedNode, in index: Index, reverse: Bool) -> NamedNode? {
        guard case .writes(let writes, let cache, let completeServer) = self else { return nil }
        return writes.child(after: position, in: index, reverse: reverse, server: completeServer ?? cache.completeServerNode)
    }
}
