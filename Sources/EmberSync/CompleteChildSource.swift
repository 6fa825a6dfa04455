import EmberCore

/// Where a filter finds children from outside a view's window: to refill a limited window, or
/// to complete a child that a deep write touches.
///
/// It holds the view's server data only, never its event data, so that a view changes its event
/// data in place while a source is alive.
enum CompleteChildSource {
    /// No other source (server updates to the server cache itself).
    case none
    /// The pending writes over the view's server data, or over a complete server node found at
    /// or above the view.
    case writes(WriteTreeRef, server: CacheNode, completeServer: Node?)

    /// The complete event data of the child `key` from the server data and the pending writes,
    /// if it can be known.
    /// - Complexity: O(d log n).
    func completeChild(_ key: ChildKey) -> Node? {
        guard case .writes(let writes, let server, let completeServer) = self else { return nil }
        let known = completeServer.map { CacheNode($0, .complete, .whole) } ?? server
        return writes.completeChild(key, server: known)
    }

    /// The child after `position` in `index` order (before it when `reverse`).
    /// - Complexity: O(log n) for key and priority order.
    func child(after position: NamedNode, in index: Index, reverse: Bool) -> NamedNode? {
        guard case .writes(let writes, let server, let completeServer) = self else { return nil }
        return writes.child(after: position, in: index, reverse: reverse, server: completeServer ?? server.completeNode)
    }
}
