import DequeModule
import EmberCore
import EmberStorage
import EmberSync
import EmberWire

extension Repo {
    /// Puts back what the store kept from the last run: the queued writes, in order, applied
    /// locally again (server values resolved now) and sent when the connection comes; and the
    /// keep-synced pins, synced again.
    /// - Throws: ``StoreError`` when the store cannot be read.
    func restoreFromStore() throws(StoreError) {
        guard let store else { return }
        for queued in try store.loadQueue() {
            let persisted = queued.write
            let id = newWriteID()
            let change: OutgoingWrite.Change
            switch persisted.change {
            case .put(let node):
                change = .put(node)
                _ = syncTree.applyUserOverwrite(resolvingServerValues(node, at: persisted.path), at: persisted.path, writeID: id)
            case .merge(let changed):
                change = .merge(changed.map { WireChange($0.path, $0.node) })
                let resolved = changed.map { ($0.path, resolvingServerValues($0.node, at: persisted.path.appending($0.path))) }
                _ = syncTree.applyUserMerge(resolved, at: persisted.path, writeID: id)
            }
            // Already in the store: only the in-memory queue takes it.
            outgoingWrites.append(
                OutgoingWrite(id: id, key: persisted.key, path: persisted.path, change: change, storeRow: queued.row, completion: { _ in }))
        }
        for query in store.pins.sorted(by: { $0.path < $1.path }) {
            keepSyncedRegistrations[query] = addListener(query, types: []) { _ in }
        }
    }

    /// What the store kept of `query`'s server data, for a view created without data in memory.
    func storedServerCache(for query: QuerySpec, in store: ClientStore) -> CacheNode? {
        do {
            let stored = try store.serverCache(for: query)
            switch stored.coverage {
            case .complete: return CacheNode(stored.node, .complete, .whole)
            case .completeWindow: return CacheNode(stored.node, .complete, .filtered)
            case .partial: return stored.node.isEmpty ? nil : CacheNode(stored.node, .partial, .whole)
            }
        } catch {
            storeFailed(error)
            return nil
        }
    }

    /// Keeps data the server sent: a default listen's as the location's data, a filtered
    /// query's child by child.
    func persistServerData(_ data: Node, at path: Path, tag: Int?) {
        guard let store else { return }
        if tag == nil || data.isLeaf {
            store.overwriteServerCache(data, at: path)
        } else {
            store.mergeIntoServerCache(data.children.map { (Path(keys: [$0.key]), $0.node) }, at: path)
        }
        if let tag { trackWindow(tag: tag) }
    }

    func persistServerMerge(_ changes: [(Path, Node)], at path: Path, tag: Int?) {
        store?.mergeIntoServerCache(changes, at: path)
        if let tag { trackWindow(tag: tag) }
    }

    /// A listen completed: its query's data is whole in the cache.
    func persistListenComplete(_ listen: ActiveListen) {
        guard let store else { return }
        let now = environment.clock.now()
        if let tag = listen.tag {
            guard let query = syncTree.query(for: tag) else { return }
            store.setQueryComplete(query, keys: windowKeys(of: query), now: now)
        } else {
            store.setQueryComplete(.default(at: listen.query.path), keys: [], now: now)
        }
    }

    /// A complete filtered query's window changed: the store tracks its children.
    private func trackWindow(tag: Int) {
        guard let store, let query = syncTree.query(for: QueryTag(tag)) else { return }
        store.setTrackedKeys(query, windowKeys(of: query))
    }

    private func windowKeys(of query: QuerySpec) -> Set<ChildKey> {
        Set(syncTree.serverCache(for: query)?.children.map(\.key) ?? [])
    }

    /// The server confirmed a write: where no active listen keeps the location's data anyway,
    /// the store keeps the written data (as resolved locally) as complete server data, so that
    /// it can be read offline after a restart.
    func persistConfirmedWrite(_ record: WriteRecord) {
        guard let store else { return }
        let now = environment.clock.now()
        let written: [(Path, Node)]
        switch record.change {
        case .overwrite(let node): written = [(record.path, node)]
        case .merge(let changes): written = changes.map { (record.path.appending($0.0), $0.1) }
        }
        for (path, node) in written where !store.hasActiveDefaultQuery(at: path) {
            if node.childCount > Self.largestConfirmedWriteCached {
                // A large write (an import) is not copied into the cache, which would double
                // its cost: what the cache held there is forgotten instead.
                store.forgetServerCache(at: path)
                continue
            }
            store.overwriteServerCache(node, at: path)
            // As Firebase's PersistenceManager.applyUserWriteToServerCache does
            // (TrackedQueryManager.ensureCompleteTrackedQuery): a location already complete
            // through itself or an ancestor needs no tracked query of its own.
            if !store.isComplete(.default(at: path)) {
                store.setQueryComplete(.default(at: path), keys: [], now: now)
            }
        }
    }

    /// The most children a confirmed write may have for the store to keep it as cached data.
    static let largestConfirmedWriteCached = 1_000

    /// Ends the tick for the store: commits what changed. When the commit fails while the
    /// client is not connected, the writes it was to keep are refused (reverted, with events,
    /// their completions told `storage_error`): a write is queued only once it is stored. Sent
    /// writes stay: the server's answer decides them.
    func commitStore() {
        guard let store, store.hasChanges else { return }
        do {
            try store.commit()
            lastStoreError = nil
        } catch {
            storeFailed(error)
            // What the server answered leaves the queue even so: deleting needs no new space.
            try? store.commitRemovals()
            guard connection.state != .connected else { return }
            let unstored = store.unstoredWriteKeys
            let refusal = DatabaseError.other(
                code: ErrorCode.storageError, message: "the client could not store the write, so it refused it: \(error.message)")
            for write in outgoingWrites where unstored.contains(write.key) && writeRequests[write.id] == nil {
                writeAnswered(write.id, status: .failed(refusal))
            }
        }
    }

    func storeFailed(_ error: StoreError) {
        lastStoreError = error
        onStoreError?(error)
    }
}
