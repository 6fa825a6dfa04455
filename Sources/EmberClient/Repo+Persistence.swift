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
        if let text = try persistence.loadAuthToken(), let token = try? AuthToken(parsing: text) {
            auth.signIn(token)
        }
        for queued in try persistence.loadQueue() {
            let persisted = queued.write
            let id = session.newWriteID()
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
            writes.append(
                OutgoingWrite(id: id, key: SentWriteKey(text: persisted.key), path: persisted.path, change: change, storeRow: queued.row, completion: { _ in }))
        }
        for query in persistence.pins {
            listeners.keepSynced(query, by: addListener(query, types: []) { _ in })
        }
    }

    /// Calls off the saves, not committed yet, of the writes a server in this process has
    /// answered (`isAnswered`) and committed: its store holds them and their answers, so a
    /// connected client's write costs the server's commit alone.
    func forgetSaves(answeredByServer isAnswered: (WriteKey) -> Bool) {
        let writer = session.writer
        persistence.forgetSaves { key in
            // This session's saves, the usual ones, are read without a parse.
            if let sequence = WriteKey.sequence(of: key, by: writer) { return isAnswered(WriteKey(writer: writer, sequence: sequence)) }
            return WriteKey(parsing: key).map(isAnswered) ?? false
        }
    }

    /// A complete filtered query's window changed: the store tracks its children.
    func trackWindow(tag: Int) {
        guard persistence.store != nil, let query = syncTree.query(for: QueryTag(tag)) else { return }
        persistence.trackWindow(of: query, keys: windowKeys(of: query))
    }

    /// A listen completed: its query's data is whole in the cache.
    func persistListenComplete(_ listen: ActiveListen) {
        guard persistence.store != nil else { return }
        let now = environment.clock.now()
        if let tag = listen.tag {
            guard let query = syncTree.query(for: tag) else { return }
            persistence.listenCompleted(query, keys: windowKeys(of: query), now: now)
        } else {
            persistence.listenCompleted(.default(at: listen.query.path), keys: [], now: now)
        }
    }

    private func windowKeys(of query: QuerySpec) -> Set<ChildKey> {
        Set(syncTree.serverCache(for: query)?.children.map(\.key) ?? [])
    }

    /// Ends the tick for the store: commits what changed. When the commit fails while the
    /// client is not connected, the writes it was to keep are refused (reverted, with events,
    /// their completions told `storage_error`): a write is queued only once it is stored. Sent
    /// writes stay: the server's answer decides them.
    /// - Parameter inBackground: the deferred changes, on the store's own queue
    ///   (``ClientPersistence/commit(inBackground:)``).
    func commitStore(inBackground: Bool = false) {
        guard let error = persistence.commit(inBackground: inBackground), connectionState != .connected else { return }
        let unstored = persistence.unstoredWriteRows
        let refusal = DatabaseError.other(
            code: ErrorCode.storageError, message: "the client could not store the write, so it refused it: \(error.message)")
        for write in writes.all where write.storeRow.map(unstored.contains) == true && !write.isSent {
            writeAnswered(write.id, status: .failed(refusal))
        }
    }
}
