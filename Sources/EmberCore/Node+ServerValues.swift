extension Node {
    /// Whether any server-value placeholder remains in the tree.
    /// - Complexity: O(n).
    public var containsServerValues: Bool {
        if case .deferred? = leafValue { return true }
        if case .deferred? = priority { return true }
        return children.contains { $0.node.containsServerValues }
    }

    /// The node with every server value resolved: timestamps become `serverTime`, increments
    /// add to the number found at the same place in `existing` (0 when there is none).
    ///
    /// Clients resolve against their local view and estimated server time; the server resolves
    /// against its tree and its clock, and its result replaces the client's.
    /// - Complexity: O(n) in the size of this node.
    public func resolvingServerValues(existing: Node, serverTime: Int64) -> Node {
        // The priority first: a server value there resolves against the existing priority
        // (Firebase's resolveDeferredValueSnapshot).
        var resolvedPriority = priority
        if case .deferred(let serverValue)? = priority {
            let current = existing.priority.map { Node($0.leafValue) } ?? .empty
            resolvedPriority = Priority(serverValue.resolve(serverTime: serverTime, current: current))
        }
        if case .deferred(let serverValue)? = leafValue {
            return Node(serverValue.resolve(serverTime: serverTime, current: existing), priority: resolvedPriority)
        }
        if resolvedPriority != priority {
            return withPriority(resolvedPriority).resolvingServerValues(existing: existing, serverTime: serverTime)
        }
        guard childCount > 0 else { return self }
        var result = self
        for child in children where child.node.containsServerValues {
            result.setChild(child.key, child.node.resolvingServerValues(existing: existing.child(child.key), serverTime: serverTime))
        }
        return result
    }
}

extension CompoundWrite {
    /// The writes with their server values resolved against `existing` (the tree the writes
    /// apply to, at the root of the write).
    public func resolvingServerValues(existing: Node, serverTime: Int64) -> CompoundWrite {
        var result = CompoundWrite.empty
        tree.forEach { path, node in
            result = result.adding(
                node.resolvingServerValues(existing: existing.child(at: path), serverTime: serverTime), at: path)
        }
        return result
    }
}
