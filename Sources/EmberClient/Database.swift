import EmberCore
import EmberEngine
import EmberStorage
import EmberSync
import EmberWire

/// One client of the database: its cache, optimistic writes, offline queue, listeners and
/// connection (the Firebase SDKs' `Database`).
///
/// Every method runs on the engine that drives the client and returns at once; what takes time
/// (the server's answer) arrives through a completion or an `async` function, which runs the
/// engine until the answer is there. Not thread-safe: use a client from the engine only.
public final class Database {
    let repo: Repo

    /// Creates a client, all in memory; it starts connecting at once unless `startOffline`.
    public init(
        name: ClientName, environment: any ClientEnvironment, startOffline: Bool = false,
        reconnect: ReconnectPolicy = .standard
    ) {
        repo = Repo(name: name, environment: environment, reconnect: reconnect, store: nil)
        repo.database = self
        if !startOffline { goOnline() }
    }

    /// Creates a client that keeps its cache, write queue, tracked queries and pins in `store`,
    /// and starts from what the store kept: its queued writes are applied locally again and sent
    /// when the connection comes, its pins are synced again, and listeners get cached data
    /// offline. (The instance that opens the stores, `Ember`, calls it; the client's own API
    /// never names the store's types.)
    /// - Throws: `storage_error` (or `store_unreadable`) when the store cannot be read.
    public init(
        name: ClientName, environment: any ClientEnvironment, store: ClientStore, startOffline: Bool = false,
        reconnect: ReconnectPolicy = .standard
    ) throws(DatabaseError) {
        repo = Repo(name: name, environment: environment, reconnect: reconnect, store: store)
        repo.database = self
        do {
            try repo.restoreFromStore()
        } catch {
            throw error.databaseError
        }
        if !startOffline { goOnline() }
    }

    // MARK: Storage

    /// The client's store, if it has one: for the instance that opened it (`Ember`) and its
    /// tools; the public API speaks of ``isPersistent`` and ``cacheSize()``.
    package var store: ClientStore? { repo.persistence.store }

    /// Whether the client keeps its cache and write queue on disk.
    public var isPersistent: Bool { repo.persistence.store != nil }

    /// The size of the cached server data on disk, in bytes (`nil` for a client in memory).
    /// - Throws: `storage_error` when the store cannot be read.
    public func cacheSize() throws(DatabaseError) -> Int? {
        try repo.persistence.cacheSize()
    }

    /// Whether the store has changes waiting for ``commitStore()``.
    public var hasUncommittedChanges: Bool { repo.persistence.hasChanges }

    /// How many changes the store holds in memory for its next commit (0 without a store).
    public var uncommittedStoreChangeCount: Int { repo.persistence.store?.waitingChangeCount ?? 0 }

    /// Commits what changed in the store since the last commit (the engine does it at the end
    /// of every tick). A failure is kept in ``lastStoreError`` and reported to
    /// ``onStoreError``; the changes wait for the next commit.
    public func commitStore() {
        repo.commitStore()
        repo.deliverLocalEvents()
    }

    /// Commits the store's deferred changes (the cache, tracked queries, answered writes
    /// leaving the queue) on the store's own queue, while the engine goes on
    /// (``ClientStore/commitInBackground()``); a later ``commitStore()`` waits for it. Changes
    /// that must be on disk at once are committed here and now, as ``commitStore()`` does.
    public func commitStoreInBackground() {
        repo.commitStore(inBackground: true)
        repo.deliverLocalEvents()
    }

    /// Whether the store's waiting changes include what must be on disk at the end of the
    /// tick (a queued write, a pin); the rest may wait (see ``ClientStore/hasUrgentChanges``).
    public var hasUrgentStoreChanges: Bool { repo.persistence.hasUrgentChanges }

    /// The writer of this session's keyed writes (`IDENTITY.SESSION`, new each run).
    public var writer: String { repo.session.writer }

    /// Whether the client's store has held a queued write since it opened
    /// (``ClientStore/hasStoredSaves``): only then can a write of ``writer`` come back to a
    /// server after a restart, replayed from the store's queue.
    public var hasStoredSaves: Bool { repo.persistence.hasStoredSaves }

    /// Calls off the saves, not committed yet, of the writes that `isAnswered` says a server in
    /// this process has answered, its store having just committed them and their answers (see
    /// ``ClientStore/forgetSaves(keptElsewhere:)``).
    public func forgetSaves(answeredByServer isAnswered: (WriteKey) -> Bool) {
        repo.forgetSaves(answeredByServer: isAnswered)
    }

    /// The error of the last store operation, if it failed (cleared by a commit that succeeds):
    /// `storage_error`, `store_unreadable`...
    public var lastStoreError: DatabaseError? { repo.persistence.lastError }

    /// Records a store failure that happened outside the client (its store could not be
    /// opened), as ``lastStoreError``.
    public func reportStoreError(_ error: DatabaseError) { repo.persistence.failed(error) }

    /// Called with each failed store operation.
    public var onStoreError: ((DatabaseError) -> Void)? {
        get { repo.persistence.onError }
        set { repo.persistence.onError = newValue }
    }

    /// Commits and closes the store. The client keeps working in memory.
    /// - Throws: `storage_error` when the store cannot be committed or closed.
    public func closeStore() throws(DatabaseError) {
        try repo.persistence.close()
    }

    /// The client's name.
    public var name: ClientName { repo.name }

    /// The reference to the root.
    public var root: Reference { Reference(database: self, path: .root) }

    /// The reference to `path` (`"users/alice"`, `"/"`, `".info/connected"`).
    /// - Throws: `invalid_path` naming the bad segment, or `path_too_deep`.
    public func reference(_ path: String) throws(DatabaseError) -> Reference {
        Reference(database: self, path: try Path(validating: path))
    }

    /// The reference to `path`.
    public func reference(_ path: Path) -> Reference {
        Reference(database: self, path: path)
    }

    // MARK: Connection

    /// Where the connection stands.
    public var connectionState: ConnectionState { repo.connectionState }

    /// Cuts the connection on purpose: writes queue, reads come from the cache, the server runs
    /// this client's onDisconnect operations. No reconnection until ``goOnline()``.
    public func goOffline() {
        defer { repo.deliverLocalEvents() }
        repo.connection(.goOffline)
    }

    /// Restores the connection after ``goOffline()``.
    public func goOnline() {
        defer { repo.deliverLocalEvents() }
        repo.connection(.goOnline)
    }

    /// The estimated difference between the server's clock and the local one, in milliseconds
    /// (`.info/serverTimeOffset`).
    public var serverTimeOffset: Int64 { repo.serverTimeOffset }

    /// How many writes wait for the server's answer (queued offline included).
    public var pendingWriteCount: Int { repo.writes.count }

    /// How many transactions are running.
    public var runningTransactionCount: Int { repo.transactions.count }

    /// The server listens the client holds now.
    public var activeListens: [QuerySpec] { repo.listens.queries }

    /// A new push id (20 characters, time-ordered, from the estimated server time).
    public func pushID() -> String { repo.pushID() }

    /// What the client knows of `path` now, complete or not known: the cache with the pending
    /// writes over it (what path completion in the shell offers).
    public func cachedValue(at path: Path) -> Node? {
        repo.cachedValue(at: path)
    }

    // MARK: Listeners

    /// Removes one listener: it hears nothing more, not even events already on their way.
    public func removeObserver(_ handle: ListenerHandle) {
        defer { repo.deliverLocalEvents() }
        repo.removeListener(RegistrationID(handle.rawValue))
    }

    // MARK: Waiting

    /// Runs the engine until `condition` holds.
    /// - Throws: ``DatabaseError`` when nothing left to happen can make it hold.
    public func run(until condition: () -> Bool) throws(DatabaseError) {
        try repo.environment.run(until: condition)
    }

    /// Runs the engine until `condition` holds, suspending while there is nothing to do.
    nonisolated(nonsending) public func run(until condition: () -> Bool) async throws(DatabaseError) {
        try await repo.environment.run(until: condition)
    }

    /// Waits for the answer a callback-style operation delivers through `start`'s argument.
    nonisolated(nonsending) func waitFor<T>(
        _ start: (@escaping (Result<T, DatabaseError>) -> Void) throws(DatabaseError) -> Void
    ) async throws(DatabaseError) -> T {
        let answer = Pending<Result<T, DatabaseError>>()
        try start(answer.filler)
        try await run { answer.isFilled }
        return try answer.value!.get()
    }
}

extension Database {
    /// Waits for the server's answer to a write started by `start` (its completion gets `nil`
    /// for success, the error otherwise).
    nonisolated(nonsending) func awaitCompletion(
        _ start: (@escaping (DatabaseError?) -> Void) throws(DatabaseError) -> Void
    ) async throws(DatabaseError) {
        try await waitFor { (finish: @escaping (Result<Void, DatabaseError>) -> Void) throws(DatabaseError) in
            try start { finish($0.map { .failure($0) } ?? .success(())) }
        }
    }
}
