import EmberCore
import EmberStorage
import EmberSync

/// What a client keeps in its store, if it has one: the server data it received, the queries
/// it tracks and their completeness, confirmed writes, the write queue and pins. It also holds
/// the last failure of the store, which the client reports.
///
/// Every method does nothing without a store. Changes collect in the store until
/// ``commit()``, at the end of each tick of the engine.
final class ClientPersistence {
    /// The store, if any.
    let store: ClientStore?
    /// The last store operation that failed (a failed commit's changes wait for the next one).
    private(set) var lastError: DatabaseError?
    /// Called with each failure.
    var onError: ((DatabaseError) -> Void)?

    /// The most children a confirmed write may have for the store to keep it as cached data.
    static let largestConfirmedWriteCached = 1_000

    init(store: ClientStore?) {
        self.store = store
    }

    // MARK: Auth

    /// The token kept across restarts (`nil`: signed out, or no store).
    func loadAuthToken() throws(StoreError) -> String? { try store?.loadAuthToken() }

    /// Keeps the token (`nil`: signed out) across restarts.
    func saveAuthToken(_ token: String?) {
        do {
            try store?.saveAuthToken(token)
        } catch {
            failed(error)
        }
    }

    /// Records a failure and reports it.
    func failed(_ error: StoreError) {
        failed(error.databaseError)
    }

    /// Records a failure (one that happened outside the client: its store could not be
    /// opened) and reports it.
    func failed(_ error: DatabaseError) {
        lastError = error
        onError?(error)
    }

    // MARK: Server data

    /// What the store kept of `query`'s server data, for a view created without data in memory.
    func serverCache(for query: QuerySpec) -> CacheNode? {
        guard let store else { return nil }
        do {
            let stored = try store.serverCache(for: query)
            switch stored.coverage {
            case .complete: return CacheNode(stored.node, .complete, .whole)
            case .completeWindow: return CacheNode(stored.node, .complete, .filtered)
            case .partial: return stored.node.isEmpty ? nil : CacheNode(stored.node, .partial, .whole)
            }
        } catch {
            failed(error)
            return nil
        }
    }

    /// Keeps data the server sent: a default listen's as the location's data, a filtered
    /// query's (`filtered`) child by child.
    func keepServerData(_ data: Node, at path: Path, filtered: Bool) {
        guard let store else { return }
        if !filtered || data.isLeaf {
            store.overwriteServerCache(data, at: path)
        } else {
            store.mergeIntoServerCache(data.children.map { (Path(keys: [$0.key]), $0.node) }, at: path)
        }
    }

    /// Keeps a merge the server sent.
    func keepServerMerge(_ changes: [(Path, Node)], at path: Path) {
        store?.mergeIntoServerCache(changes, at: path)
    }

    /// A complete filtered query's window changed: the store tracks its children.
    func trackWindow(of query: QuerySpec, keys: Set<ChildKey>) {
        store?.setTrackedKeys(query, keys)
    }

    /// A listen completed: its query's data (`keys`, for a window) is whole in the store.
    func listenCompleted(_ query: QuerySpec, keys: Set<ChildKey>, now: Int64) {
        store?.setQueryComplete(query, keys: keys, now: now)
    }

    /// The server confirmed a write: where no active listen keeps the location's data anyway,
    /// the store keeps the written data (as resolved locally) as complete server data, so that
    /// it can be read offline after a restart.
    func keepConfirmedWrite(_ record: WriteRecord, now: Int64) {
        guard let store else { return }
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

    // MARK: Queries and pins

    /// A view of `query` exists now.
    func queryActive(_ query: QuerySpec, now: Int64) { store?.setQueryActive(query, now: now) }

    /// The last view of `query` went.
    func queryInactive(_ query: QuerySpec, now: Int64) { store?.setQueryInactive(query, now: now) }

    func pin(_ query: QuerySpec) { store?.pin(query) }

    func unpin(_ query: QuerySpec) { store?.unpin(query) }

    /// The pins kept from the last run, by location.
    var pins: [QuerySpec] { store?.pins.sorted { $0.path < $1.path } ?? [] }

    // MARK: The write queue

    /// Keeps a queued write; returns its row. The write is made only when there is a store
    /// (its key as text and its change copied: 800 instructions of a write in memory, callgrind).
    func saveWrite(_ write: @autoclosure () -> PersistedWrite) -> Int64? {
        guard let store else { return nil }
        return store.saveWrite(write())
    }

    /// Forgets an answered write.
    func removeWrite(row: Int64) {
        store?.removeWrite(row: row)
    }

    /// Calls off the saves, not committed yet, of the queued writes `isKept` says the server's
    /// store already holds (see ``ClientStore/forgetSaves(keptElsewhere:)``).
    func forgetSaves(keptElsewhere isKept: (String) -> Bool) {
        store?.forgetSaves(keptElsewhere: isKept)
    }

    /// Makes removals of answered writes committed without an `fsync` durable, before the
    /// server is told which writers the client may still send (a failure is recorded).
    func syncRemovals() {
        do {
            try store?.syncRemovals()
        } catch {
            failed(error)
        }
    }

    /// The writes queued by the last run, in order.
    /// - Throws: ``StoreError`` when the store cannot be read.
    func loadQueue() throws(StoreError) -> [QueuedWrite] {
        try store?.loadQueue() ?? []
    }

    // MARK: Commits

    /// Whether changes wait for ``commit()``.
    var hasChanges: Bool { store?.hasChanges ?? false }

    /// Whether changes that must be on disk at the end of the tick wait (see
    /// ``ClientStore/hasUrgentChanges``).
    var hasUrgentChanges: Bool { store?.hasUrgentChanges ?? false }

    /// Whether the store has held a queued write since it opened (see
    /// ``ClientStore/hasStoredSaves``); without a store, `false`.
    var hasStoredSaves: Bool { store?.hasStoredSaves ?? false }

    /// Commits what changed. On failure the error is recorded, reported and returned, and
    /// what was removed (answered writes) is committed even so: deleting needs no new space.
    /// - Parameter inBackground: the deferred changes on the store's own queue
    ///   (``ClientStore/commitInBackground()``); otherwise the commits handed to it before are
    ///   waited for (and their failures taken back).
    func commit(inBackground: Bool = false) -> StoreError? {
        guard let store, store.hasChanges || (!inBackground && store.hasBackgroundCommits) else { return nil }
        do {
            if inBackground {
                try store.commitInBackground()
                return nil
            }
            try store.commit()
            lastError = nil
            return nil
        } catch {
            failed(error)
            try? store.commitRemovals()
            return error
        }
    }

    /// Commits the removals only (a refused write leaves the stored queue before anyone hears
    /// of it).
    func commitRemovals() {
        guard let store else { return }
        do {
            try store.commitRemovals()
        } catch {
            failed(error)
        }
    }

    /// The rows of the queued writes the last failed commit did not store.
    var unstoredWriteRows: Set<Int64> { store?.unstoredWriteRows ?? [] }

    /// Commits and closes the store.
    /// - Throws: `storage_error` when the store cannot be committed or closed.
    func close() throws(DatabaseError) {
        do {
            try store?.close()
        } catch {
            throw error.databaseError
        }
    }

    /// The size of the cached server data, in bytes (`nil` without a store).
    /// - Throws: `storage_error` when the store cannot be read.
    func cacheSize() throws(DatabaseError) -> Int? {
        do {
            return try store?.cacheSize()
        } catch {
            throw error.databaseError
        }
    }
}
