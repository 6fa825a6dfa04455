import EmberCore
import EmberRules
import EmberStorage
import EmberWire

extension ServerCore {
    /// Makes the data at `path` whole in memory, reading it from the store if it is not.
    /// - Returns: `storage_error` when the store cannot be read.
    func load(_ path: Path) -> DatabaseError? {
        do {
            try tree.ensureLoaded(path)
            return nil
        } catch {
            return error.databaseError
        }
    }

    /// What a one-off read of `query` returns: from the index the store keeps when the rules
    /// declare the query's value or child order and its location is not in memory (the
    /// location is not loaded: only the children returned are), else from the location loaded.
    /// - Returns: `storage_error` when the store cannot be read.
    mutating func read(_ query: QuerySpec) -> Result<Node, DatabaseError> {
        if let answer = readThroughStoredIndex(query) { return answer }
        if let error = load(query.path) { return .failure(error) }
        return .success(data(for: query))
    }

    /// The answer to `query` from the store's index of its location and order (built first
    /// when the store keeps none yet), or `nil` when that cannot answer it: the order is not
    /// declared, the location is in memory (its index there is current), a change to it
    /// waits for the tick's commit, or the index holds no child in the window (the location
    /// may be a leaf, which the ordinary read answers).
    private func readThroughStoredIndex(_ query: QuerySpec) -> Result<Node, DatabaseError>? {
        guard let store, !query.params.loadsAllData, let order = query.params.orderBy else { return nil }
        switch order {
        case .value, .child: break
        case .key, .priority: return nil
        }
        guard rules.indexes(at: query.path).contains(order), !tree.isLoaded(query.path),
            !store.hasChanges(touching: query.path)
        else { return nil }
        do {
            let index: StoredIndex
            if let kept = store.storedIndex(at: query.path, order) {
                index = kept
            } else if !store.isReadOnly {
                index = try store.buildIndex(at: query.path, order)
            } else {
                return nil
            }
            let keys = try store.queryIndex(index, query.params)
            if keys.isEmpty { return nil }
            var children: [(ChildKey, Node)] = []
            children.reserveCapacity(keys.count)
            for key in keys {
                let child = query.path.child(key)
                try tree.ensureLoaded(child)
                let node = tree.root.child(at: child)
                if !node.isEmpty { children.append((key, node)) }
            }
            return .success(Node(children: children))
        } catch {
            return .failure(error.databaseError)
        }
    }

    /// The data a query returns: the whole location, or the children in its window.
    /// - Complexity: O(log n + k) for k children by key or priority, or by a value or child
    ///   order the rules index; O(n log k) for an unindexed value or child order (a scan).
    mutating func data(for query: QuerySpec) -> Node {
        let location = tree.node(at: query.path)
        if query.params.loadsAllData { return location }
        if let index = indexes.index(for: query.params, at: query.path, root: tree.root) {
            return Node(children: index.query(query.params).lazy.map { ($0.key, $0.node) })
        }
        return query.params.filteredNode(location)
    }
}
