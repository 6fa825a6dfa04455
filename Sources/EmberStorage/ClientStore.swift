import EmberCore
import GRDB

/// One client's durable state on SQLite: the server data it has cached by path, its queue of
/// unanswered writes, the queries it has listened to (with whether each completed and when it
/// was last used), and its keep-synced pins.
///
/// Changes are kept in memory and written by ``commit()`` in one transaction, once per engine
/// tick, like the server's store. Reads (``serverCache(for:)``) commit first, so they see
/// every change. Above ``cacheSizeLimit`` bytes of cached data, ``pruneIfNeeded()`` drops the
/// data of the least recently used inactive queries, never that of active or pinned queries, or
/// at the locations of queued writes. Transactions are never stored.
public final class ClientStore {
    private static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-client") { db in
            try db.create(table: "cache", options: [.withoutRowID]) { table in
                table.primaryKey("path", .text)
                table.column("value", .text).notNull()
            }
            try db.create(table: "writes") { table in
                table.autoIncrementedPrimaryKey("seq")
                table.column("key", .text).notNull().unique()
                table.column("path", .text).notNull()
                table.column("kind", .text).notNull()
                table.column("value", .text).notNull()
            }
            try db.create(table: "queries") { table in
                table.primaryKey("id", .integer)
                table.column("path", .text).notNull()
                table.column("params", .text).notNull()
                table.column("complete", .boolean).notNull()
                table.column("active", .boolean).notNull()
                table.column("lastUse", .integer).notNull()
                table.column("keys", .text).notNull()
            }
            try db.create(table: "pins", options: [.withoutRowID]) { table in
                table.column("path", .text).notNull()
                table.column("params", .text).notNull()
                table.primaryKey(["path", "params"])
            }
        }
        migrator.registerMigration("v2-identity") { db in
            // The client's lasting identity: the server knows its writers by it.
            try db.create(table: "meta", options: [.withoutRowID]) { table in
                table.primaryKey("key", .text)
                table.column("value", .text).notNull()
            }
        }
        migrator.registerMigration("v3-writes-by-row") { db in
            // Answered writes leave the queue by their rows (ranges of `seq`), never by key: the
            // unique index on the key only cost every insert and delete a second B-tree. The
            // store numbers the rows itself (after the last one), so no AUTOINCREMENT either.
            try db.execute(
                sql: """
                    CREATE TABLE writes_by_row (
                        seq INTEGER PRIMARY KEY, key TEXT NOT NULL, path TEXT NOT NULL,
                        kind TEXT NOT NULL, value TEXT NOT NULL);
                    INSERT INTO writes_by_row (seq, key, path, kind, value) SELECT seq, key, path, kind, value FROM writes;
                    DROP TABLE writes;
                    ALTER TABLE writes_by_row RENAME TO writes;
                    """)
        }
        return migrator
    }()

    static let rows = LeafRows(table: "cache")

    /// A change waiting for the next commit, in order.
    enum Change: Sendable {
        case cache(Path, Node)
        /// A write joins the queue as row `seq`.
        case saveWrite(PersistedWrite, seq: Int64)
        /// An answered write leaves it: row `seq`.
        case removeWrite(seq: Int64)
        case pin(QuerySpec)
        case unpin(QuerySpec)
    }

    /// Where the data lives.
    public let location: StoreLocation
    /// Above this many bytes of cached data, the least recently used is pruned.
    public let cacheSizeLimit: Int
    /// How many server updates pass between two size checks.
    public let pruneCheckInterval: Int
    let queue: DatabaseQueue
    /// The deferred commits handed to the store's own queue (``commitInBackground()``), and
    /// what those that failed left.
    let backgroundCommits = BackgroundCommits()
    private var changes: [Change] = []
    /// Tracked queries changed since the last commit (`nil`: removed), by id.
    var queryChanges: [Int64: TrackedQuery?] = [:]
    /// The tracked queries, by query (one that loads all data as the default query).
    let queries = TrackedQueryTable()
    var nextQueryID: Int64 = 1
    /// The kept-synced queries.
    public private(set) var pins: Set<QuerySpec> = []
    /// The locations of the queued writes, by row (rows are handed out in order and mostly
    /// answered in order: a window of slots, not a table hashing each location twice a write).
    var writeLocations = NumberedSlots<Path>()
    /// The row the next queued write takes: after every row in the table.
    private var nextWriteRow: Int64 = 1
    var serverUpdatesSinceCheck = 0
    /// The keys of the writes saved since the last commit whose saves are still to be written,
    /// by row (in a window of slots: rows are handed out in order).
    private var uncommittedSaves = NumberedSlots<String>()
    /// The rows of the writes saved since the last commit (not on disk yet): after a failed
    /// commit, the writes it did not store.
    /// - Complexity: O(s) for the s saves not committed.
    public var unstoredWriteRows: Set<Int64> { Set(uncommittedSaves.numbers.map(Int64.init)) }
    /// The rows whose saves, not committed yet, were called off (the write was answered, or the
    /// server's store holds it): the commit skips them.
    private var cancelledSaves: Set<Int64> = []
    /// The rows of queued writes that were never written to the file (their saves called off
    /// because the server's store held them): their removal changes nothing on disk.
    private var neverStoredRows = NumberedSlots<Void>()
    /// Whether the file has held a queued write since the store was opened (one was there when
    /// it opened, or a commit stored a save): only then can a write of this client come back
    /// to a server after a restart, replayed from the queue. While it is `false`, a server in
    /// this process need not make the watermark of this client's writer durable (see
    /// `Server.storesWatermark`). Never goes back to `false`.
    public private(set) var hasStoredSaves = false
    /// Whether a pin or unpin waits for the commit.
    private var hasPinChanges = false
    /// Whether answered writes left the file in commits that were not `fsync`ed (`full` mode
    /// only): see ``syncRemovals()``.
    public private(set) var hasUnsyncedRemovals = false
    /// How the store's commits reach the disk.
    public let durability: Durability
    /// The `synchronous` setting of the connection now.
    private var synchronousNow: Durability

    /// The client's lasting identity, which the keys of its writes carry: made when the store
    /// is created (from `newIdentity`) and kept for its life.
    public let identity: String

    /// Opens (or creates) a client's store. Queries active when the client last stopped become
    /// inactive, last used `now`.
    /// - Parameter newIdentity: the identity to keep when the store has none yet (it is new).
    /// - Throws: ``StoreError`` naming the file when it cannot be opened or read.
    public init(
        at location: StoreLocation, durability: Durability, cacheSizeLimit: Int = 10_000_000,
        pruneCheckInterval: Int = 1000, now: Int64, newIdentity: @autoclosure () -> String = ClientStore.randomIdentity()
    ) throws(StoreError) {
        self.location = location
        self.cacheSizeLimit = cacheSizeLimit
        self.pruneCheckInterval = max(1, pruneCheckInterval)
        self.durability = durability
        synchronousNow = durability
        queue = try location.openDurable("the client's store", durability: durability, migrator: Self.migrator)
        identity = try Self.identity(in: queue, at: location, orNew: newIdentity)
        try loadState(now: now)
    }

    /// A random identity: 13 base-36 digits.
    public static func randomIdentity() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }

    /// The identity the store keeps, after storing `candidate` when it has none.
    private static func identity(in queue: DatabaseQueue, at location: StoreLocation, orNew candidate: () -> String)
        throws(StoreError) -> String
    {
        do {
            return try queue.write { db in
                if let stored = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'identity'") {
                    return stored
                }
                let identity = candidate()
                try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('identity', ?)", arguments: [identity])
                return identity
            }
        } catch {
            throw StoreError("cannot read the identity of the client's store at \(location)", error)
        }
    }

    /// How many changes wait for a commit (the saves called off included).
    /// - Complexity: O(1).
    public var waitingChangeCount: Int { changes.count + queryChanges.count }

    /// Whether changes wait for ``commit()``.
    public var hasChanges: Bool {
        changes.count > cancelledSaves.count || !queryChanges.isEmpty || backgroundCommits.hasFailures
    }

    /// Whether the changes waiting include what must be on disk at the end of the tick: a
    /// queued write (a write is queued only once stored) or a pin. The rest (the cache, the
    /// tracked queries, answered writes leaving the queue) may wait for a later commit: a crash
    /// before it leaves the store as it was a moment earlier, which the client syncs again (an
    /// answered write sent again is answered from the server's ledger, not applied twice).
    public var hasUrgentChanges: Bool { !uncommittedSaves.isEmpty || hasPinChanges }

    /// Whether deferred commits were handed to the store's queue since a commit on the engine's
    /// thread last waited for them (``commitInBackground()``).
    public var hasBackgroundCommits: Bool { backgroundCommits.hasSubmitted }

    // MARK: Server cache

    /// Records the server's data at `path` (the whole location).
    /// - Complexity: O(1) now; the rows are written at the commit.
    public func overwriteServerCache(_ node: Node, at path: Path) {
        changes.append(.cache(path, node))
        serverUpdatesSinceCheck += 1
    }

    /// Records the server's data at each `path/relative` of `changes`.
    public func mergeIntoServerCache(_ changed: [(Path, Node)], at path: Path) {
        for (relative, node) in changed { changes.append(.cache(path.appending(relative), node)) }
        serverUpdatesSinceCheck += 1
    }

    /// The server data cached at and below `path`, complete or not.
    /// - Throws: ``StoreError`` when pending changes cannot be committed or the file read.
    public func cachedNode(at path: Path) throws(StoreError) -> Node {
        try commit()
        return try read("read the cache") { db in
            // A bad row is left out: the cache only saves a trip to the server.
            var problems: [BadRow] = []
            return try Self.rows.load(at: path, in: db, problems: &problems)
        }
    }

    /// How many bytes the cached server data takes (paths and values).
    public func cacheSize() throws(StoreError) -> Int {
        try commit()
        return try read("measure the cache") { db in
            try Int.fetchOne(db, sql: Self.cacheSizeQuery) ?? 0
        }
    }

    /// The statement that measures the cached data (``cacheSize()``): it reads every row.
    static let cacheSizeQuery = "SELECT coalesce(sum(length(path) + length(value)), 0) FROM cache"


    // MARK: Writes

    /// Adds a write to the end of the queue.
    /// - Returns: its row, which ``removeWrite(key:row:at:)`` takes.
    @discardableResult
    public func saveWrite(_ write: PersistedWrite) -> Int64 {
        let seq = nextWriteRow
        nextWriteRow += 1
        changes.append(.saveWrite(write, seq: seq))
        uncommittedSaves.insert(write.key, at: Int(seq))
        writeLocations.insert(write.path, at: Int(seq))
        return seq
    }

    /// Removes the write in `row` (answered by the server). A write whose save is not
    /// committed yet, or was never written (``forgetSaves(keptElsewhere:)``), changes nothing on
    /// disk: its save is called off.
    public func removeWrite(row: Int64) {
        if uncommittedSaves.remove(Int(row)) != nil {
            cancelledSaves.insert(row)
        } else if neverStoredRows.remove(Int(row)) == nil {
            changes.append(.removeWrite(seq: row))
        }
        writeLocations.remove(Int(row))
    }

    /// Calls off the saves, not committed yet, of the queued writes `keptElsewhere` says are
    /// durable elsewhere: the embedded server's store committed them (and its ledger their
    /// answers) before this commit, so the queue need not keep them. The writes stay queued in
    /// memory until answered; their rows are never written, and removing them costs nothing.
    /// A crash before the answer loses nothing (the server has the write, once) and doubles
    /// nothing (the queue does not have it to send again).
    /// - Complexity: O(s) for s saves not committed yet, plus the predicate for each (it
    ///   walked every change waiting, 20,000 instructions a write when the cache's changes wait
    ///   20 ms for their commit).
    public func forgetSaves(keptElsewhere: (String) -> Bool) {
        guard !uncommittedSaves.isEmpty else { return }
        var forgotten: [Int] = []
        uncommittedSaves.forEach { seq, key in if keptElsewhere(key) { forgotten.append(seq) } }
        for seq in forgotten {
            uncommittedSaves.remove(seq)
            cancelledSaves.insert(Int64(seq))
            neverStoredRows.insert((), at: seq)
        }
    }

    /// Makes the removals of answered writes that were committed without an `fsync` durable
    /// (one small commit, `fsync`ed), before the client tells the server which of its writers
    /// it may still send: the server then forgets the others, and a removal lost to a crash of
    /// the machine would send a forgotten write again.
    /// - Throws: ``StoreError`` when the commit fails.
    public func syncRemovals() throws(StoreError) {
        guard hasUnsyncedRemovals else { return }
        try commit()
        do {
            try setSynchronous(.full)
            try queue.inTickTransaction { db in
                try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('synced', '1')")
                return .commit
            }
        } catch {
            throw StoreError("cannot make the removals of answered writes durable in the client's store at \(location)", error)
        }
        noteCommit(removingWrites: false)
    }

    /// Notes a commit made at the connection's `synchronous` setting now: an `fsync`ed one
    /// makes every earlier removal durable with it; in `full` mode, one that removed answered
    /// writes without an `fsync` leaves them unsynced (``syncRemovals()``).
    private func noteCommit(removingWrites: Bool) {
        if synchronousNow == .full {
            hasUnsyncedRemovals = false
        } else if removingWrites && durability == .full {
            hasUnsyncedRemovals = true
        }
    }

    /// Sets the connection's `synchronous` setting when it differs.
    private func setSynchronous(_ wanted: Durability) throws {
        guard wanted != synchronousNow else { return }
        try queue.inDatabase { db in try db.execute(sql: "PRAGMA synchronous = \(wanted.synchronousPragma)") }
        synchronousNow = wanted
    }

    /// The queued writes with their rows, oldest first.
    /// - Throws: ``StoreError`` when the file cannot be read or holds a write that is not JSON.
    public func loadQueue() throws(StoreError) -> [QueuedWrite] {
        try commit()
        return try read("read the write queue") { db in
            var writes: [QueuedWrite] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT key, path, kind, value, seq FROM writes ORDER BY seq")
            while let row = try rows.next() {
                let seq: Int64 = row[4]
                let path = Path(unchecked: row[1] as String)
                let kind: String = row[2]
                if kind == "merge" {
                    // {"0": {"p": relative path, "v": value}, "1": …}, read from the parsed JSON
                    // straight into the changes (no tree of the whole object is built).
                    guard case .object(let entries) = try JSONParser.parse(row[3]) else {
                        throw StoreError("a queued update at \(path) is not an object")
                    }
                    var changed: [(index: Int, change: PersistedWrite.Changed)] = []
                    for entry in entries {
                        guard case .object(let fields) = entry.value,
                            case .string(let relative)? = fields.first(where: { $0.key == "p" })?.value
                        else {
                            throw StoreError("a queued update at \(path) has a change without a path")
                        }
                        let relativePath = Path(unchecked: relative)
                        let value = fields.first(where: { $0.key == "v" })?.value ?? .null
                        changed.append((Int(entry.key) ?? 0, .init(relativePath, try Node(json: value, at: path.appending(relativePath)))))
                    }
                    changed.sort { $0.index < $1.index }
                    writes.append(
                        QueuedWrite(row: seq, write: PersistedWrite(key: row[0], path: path, change: .merge(changed.map(\.change)))))
                } else {
                    let value = try Node(jsonText: row[3], at: path)
                    writes.append(QueuedWrite(row: seq, write: PersistedWrite(key: row[0], path: path, change: .put(value))))
                }
            }
            return writes
        }
    }

    // MARK: Pins

    /// Keeps `query` synced across restarts, and its data out of pruning.
    public func pin(_ query: QuerySpec) {
        guard pins.insert(query).inserted else { return }
        changes.append(.pin(query))
        hasPinChanges = true
    }

    /// Stops keeping `query` synced.
    public func unpin(_ query: QuerySpec) {
        guard pins.remove(query) != nil else { return }
        changes.append(.unpin(query))
        hasPinChanges = true
    }

    // MARK: Committing

    /// Writes every change since the last commit in one transaction, then prunes if a size check
    /// is due. On failure nothing of it is written and the changes stay, for the next attempt.
    /// - Throws: ``StoreError`` with SQLite's reason (disk full, read-only file, I/O error).
    public func commit() throws(StoreError) {
        takeBackgroundFailures()
        guard hasChanges else {
            clearChanges()
            return
        }
        let changes = self.changes
        let queryChanges = self.queryChanges
        let cancelled = cancelledSaves
        var rows = 0
        // In `full` mode only a commit that stores a queued write needs its `fsync`: the cache,
        // the queries and the pins can be fetched again, and an answered write whose removal is
        // lost is answered again from the server's ledger, not applied twice.
        let savesWrites = !uncommittedSaves.isEmpty
        let removesWrites = changes.contains { if case .removeWrite = $0 { true } else { false } }
        let synchronous = durability == .full && !savesWrites ? Durability.normal : durability
        do {
            try setSynchronous(synchronous)
            try queue.inTransaction { db in
                rows = try Self.write(changes, queryChanges, skipping: cancelled, in: db)
                return .commit
            }
        } catch {
            throw Self.commitFailure(changes.count + queryChanges.count, at: location, error)
        }
        if savesWrites { hasStoredSaves = true }
        clearChanges()
        noteCommit(removingWrites: removesWrites)
        // A large cache written (a listen on a large location): what building its rows freed.
        if rows >= Self.largeCommitRows { FreedMemory.release() }
        // A size check due here, or one made on the store's queue after a background commit
        // that found the cache over its limit.
        if serverUpdatesSinceCheck >= pruneCheckInterval || backgroundCommits.takePruneDue() {
            serverUpdatesSinceCheck = 0
            _ = try pruneIfNeeded()
        }
    }

    /// Commits the changes waiting as ``commit()`` does, but on the store's own queue while the
    /// caller goes on: for the deferred changes (the cache, tracked queries, answered writes
    /// leaving the queue), which no answer waits for. The engine's thread then spends nothing
    /// on them (a sixth of a durable write's instructions, callgrind), and the commit runs on
    /// the other core. What the caller does with the store afterwards (a read, another commit)
    /// runs after it: the store's queue is serial.
    ///
    /// A size check due is made on the queue after the commit; a cache found over its limit
    /// is pruned by the next commit, made on the caller's thread (pruning needs the tracked
    /// queries). A queued write or a pin to store (``hasUrgentChanges``), a pruning due, or an
    /// earlier background commit that failed make it ``commit()`` here and now instead, so that
    /// a failure is thrown to the caller. A background commit that fails gives its changes back
    /// (see ``BackgroundCommits``), and the ones queued after it stand aside, so that nothing
    /// lands out of order.
    /// - Throws: ``StoreError`` from a commit made here.
    public func commitInBackground() throws(StoreError) {
        guard !hasUrgentChanges, !backgroundCommits.hasFailures, !backgroundCommits.isPruneDue else {
            return try commit()
        }
        guard hasChanges else {
            clearChanges()
            return
        }
        // A size check due is made on the store's queue too, after the commit: measuring the
        // cache reads every row, which the engine's thread must not wait for every thousand
        // server updates. Only a cache found over its limit brings the pruning back to the
        // engine's thread, at its next commit (which needs the tracked queries).
        let checksSize = serverUpdatesSinceCheck >= pruneCheckInterval
        if checksSize { serverUpdatesSinceCheck = 0 }
        let limit = cacheSizeLimit
        // No save is left to write (`hasUrgentChanges` is false): the saves here were called
        // off, and are skipped.
        let changes = self.changes
        let cancelled = cancelledSaves
        let queryChanges = self.queryChanges
        let removesWrites = changes.contains { if case .removeWrite = $0 { true } else { false } }
        // The `synchronous` setting changes on the queue, before the commit, in order with
        // everything else there: set here, it would wait for the commits queued before it.
        let synchronous = durability == .full ? Durability.normal : durability
        let pragma = synchronous == synchronousNow ? nil : "PRAGMA synchronous = \(synchronous.synchronousPragma)"
        synchronousNow = synchronous
        clearChanges()
        noteCommit(removingWrites: removesWrites)
        let commits = backgroundCommits
        backgroundCommits.didSubmit()
        queue.asyncWriteWithoutTransaction { db in
            do {
                // After a failure, stand aside: the changes go back in order.
                guard !commits.hasFailures else { throw CancellationError() }
                if let pragma { try db.execute(sql: pragma) }
                try db.inTransaction {
                    _ = try ClientStore.write(changes, queryChanges, skipping: cancelled, in: db)
                    return .commit
                }
            } catch {
                // The size check is made again by the commit on the engine's thread.
                if checksSize { commits.noteCacheOverLimit() }
                // What is given back leaves the called-off saves out. Its failure reaches the
                // caller from the commit that retries it on the engine's thread.
                commits.failed(changes.filter { if case .saveWrite = $0 { false } else { true } }, queryChanges)
                return
            }
            // A size that cannot be read is checked again on the engine's thread, where its
            // failure reaches the caller.
            if checksSize, (try? Int.fetchOne(db, sql: ClientStore.cacheSizeQuery)).flatMap({ $0 }).map({ $0 <= limit }) != true {
                commits.noteCacheOverLimit()
            }
        }
    }

    /// The error of a commit of `count` changes that failed with SQLite's `error`.
    private static func commitFailure(_ count: Int, at location: StoreLocation, _ error: any Error) -> StoreError {
        StoreError("cannot commit \(count) change(s) to the client's store at \(location)", error)
    }

    /// Takes back the changes of background commits that failed, before those waiting now (they
    /// are older), after waiting for the background commits still queued.
    /// - Complexity: O(1) when none was submitted since the last call.
    func takeBackgroundFailures() {
        guard backgroundCommits.takeSubmitted() else { return }
        // Every background commit submitted so far has run once this returns.
        queue.inDatabase { _ in }
        let failures = backgroundCommits.takeFailures()
        guard !failures.isEmpty else { return }
        changes = failures.flatMap(\.changes) + changes
        // The newest change of a tracked query wins: those waiting now, then the latest failed.
        for failure in failures.reversed() {
            for (id, query) in failure.queryChanges where queryChanges.index(forKey: id) == nil {
                queryChanges[id] = query
            }
        }
    }

    /// Writes `changes` (but the saves of `skipped` rows) and `queryChanges` in the transaction
    /// open on `db`.
    /// - Returns: how many rows of cached data were written.
    private static func write(
        _ changes: [Change], _ queryChanges: [Int64: TrackedQuery?], skipping skipped: Set<Int64>, in db: Database
    ) throws -> Int {
        var rows = 0
        // Ancestors whose leaf rows this transaction already deleted: several changes
        // below one location delete its row once.
        var cleared: Set<Path> = []
        // Answered writes leave the queue together at the end, by ranges of rows (a
        // replay answers thousands in one tick, in order).
        var removed: [Int64] = []
        let superseded = supersededCacheChanges(changes)
        let statements = try Statements(db)
        for (index, change) in changes.enumerated() {
            if case .removeWrite(let seq) = change {
                removed.append(seq)
            } else if case .saveWrite(_, let seq) = change, skipped.contains(seq) {
                continue
            } else if !superseded.contains(index) {
                rows += try apply(change, clearing: &cleared, with: statements)
            }
        }
        try deleteWrites(rows: removed, in: db)
        for (id, query) in queryChanges { try save(query, id: id, with: statements) }
        return rows
    }

    /// Forgets the changes just committed (or that were all called off).
    private func clearChanges() {
        changes = []
        queryChanges = [:]
        uncommittedSaves = NumberedSlots()
        cancelledSaves = []
        hasPinChanges = false
    }

    /// Commits only the removals of answered writes, when a whole commit failed (a full disk):
    /// deleting rows needs no new space, and a write the server answered (a refusal above all)
    /// must leave the queue before a restart can send it again. A write saved and removed
    /// since the last commit was never stored: its save was called off and is dropped.
    /// - Throws: ``StoreError`` when even that fails (the removals stay, for the next commit).
    public func commitRemovals() throws(StoreError) {
        takeBackgroundFailures()
        var removed: [Int64] = []
        for case .removeWrite(let seq) in changes { removed.append(seq) }
        if !removed.isEmpty {
            do {
                try queue.inTransaction { db in
                    try Self.deleteWrites(rows: removed, in: db)
                    return .commit
                }
            } catch {
                throw StoreError("cannot remove \(removed.count) answered write(s) from the client's store at \(location)", error)
            }
            noteCommit(removingWrites: true)
        }
        let cancelled = cancelledSaves
        changes.removeAll { change in
            switch change {
            case .removeWrite: true
            case .saveWrite(_, let seq): cancelled.contains(seq)
            default: false
            }
        }
        cancelledSaves = []
    }

    /// Limits the file to about `bytes` (`nil`: no limit beyond SQLite's): a commit that needs
    /// more fails as on a full disk.
    public func setMaximumSize(_ bytes: Int?) throws(StoreError) {
        try queue.setMaximumSize(bytes, of: "the client's store", at: location)
    }

    /// Closes the database, after committing what waits. The store cannot be used afterwards.
    public func close() throws(StoreError) {
        try commit()
        do {
            try queue.close()
        } catch {
            throw StoreError("cannot close the client's store at \(location)", error)
        }
    }

    // MARK: SQL

    func read<T>(_ action: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        try queue.reading(action, of: "the client's store", at: location, body)
    }

    /// The statements a commit runs per change, prepared once for it.
    private struct Statements {
        let db: Database
        let cache: LeafRows.Writer
        let insertWrite: BulkStatement
        let upsertQuery: BulkStatement
        let deleteQuery: BulkStatement

        init(_ db: Database) throws {
            self.db = db
            cache = try ClientStore.rows.writer(in: db)
            insertWrite = try BulkStatement("INSERT INTO writes (seq, key, path, kind, value) VALUES (?, ?, ?, ?, ?)", in: db)
            upsertQuery = try BulkStatement(
                """
                INSERT INTO queries (id, path, params, complete, active, lastUse, keys) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET
                    complete = excluded.complete, active = excluded.active, lastUse = excluded.lastUse, keys = excluded.keys
                """, in: db)
            deleteQuery = try BulkStatement("DELETE FROM queries WHERE id = ?", in: db)
        }
    }

    /// The rows of server data a commit writes from which it hands back the memory it freed
    /// (``FreedMemory``): about 8 MB of rows.
    static let largeCommitRows = 100_000

    /// Writes one change; returns how many rows of server data it wrote.
    @discardableResult
    private static func apply(_ change: Change, clearing cleared: inout Set<Path>, with statements: Statements) throws -> Int {
        let db = statements.db
        switch change {
        case .cache(let path, let node):
            try statements.cache.clear(path, for: node)
            // A leaf above is replaced by the object this makes (its priority stays).
            var ancestor = path
            while ancestor.removeLastKey() != nil {
                guard cleared.insert(ancestor).inserted else { break }
                try statements.cache.deleteRow(LeafRows.rowPath(ancestor))
            }
            // Rows written here may be leaves above a later change.
            if !node.isEmpty { cleared = cleared.filter { !path.contains($0) } }
            return try statements.cache.insertRows(of: node, at: path)
        case .saveWrite(let write, let seq):
            let kind: String
            let value: Node
            switch write.change {
            case .put(let node):
                kind = "put"
                value = node
            case .merge(let changed):
                kind = "merge"
                value = Node(
                    children: changed.enumerated().map { index, change in
                        (
                            ChildKey(unchecked: String(index)),
                            Node(children: [
                                (ChildKey(unchecked: "p"), Node(.string(change.path.description))),
                                (ChildKey(unchecked: "v"), change.node),
                            ])
                        )
                    })
            }
            try statements.insertWrite.run(
                .integer(seq), .text(write.key), .text(write.path.description), .text(kind), .text(value.jsonString(.export)))
        case .removeWrite(let seq):
            try deleteWrites(rows: [seq], in: db)
        case .pin(let query):
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO pins (path, params) VALUES (?, ?)")
                .execute(arguments: [query.path.description, query.params.storageNode.jsonString(.export)])
        case .unpin(let query):
            try db.cachedStatement(sql: "DELETE FROM pins WHERE path = ? AND params = ?")
                .execute(arguments: [query.path.description, query.params.storageNode.jsonString(.export)])
        }
        return 0
    }

    /// The positions of the cache changes that a later one rewrites anyway (at the same
    /// location or above it): a replay confirms thousands of writes to one location in a tick,
    /// and only the last needs its rows written.
    /// - Complexity: O(c·d) for c changes of depth d.
    private static func supersededCacheChanges(_ changes: [Change]) -> Set<Int> {
        var superseded: Set<Int> = []
        var written = PathSet()
        for index in changes.indices.reversed() {
            guard case .cache(let path, _) = changes[index] else { continue }
            if !written.fold(path) { superseded.insert(index) }
        }
        return superseded
    }

    /// Deletes the queued writes in `rows`, one statement per run of consecutive rows.
    /// - Complexity: O(k log k) to sort k rows, plus O(log w + k) for the deletes among w
    ///   queued writes.
    static func deleteWrites(rows: [Int64], in db: Database) throws {
        let sorted = rows.sorted()
        var index = sorted.startIndex
        let statement = try db.cachedStatement(sql: "DELETE FROM writes WHERE seq BETWEEN ? AND ?")
        while index < sorted.endIndex {
            let first = sorted[index]
            var last = first
            index += 1
            while index < sorted.endIndex, sorted[index] == last + 1 {
                last = sorted[index]
                index += 1
            }
            try statement.execute(arguments: [first, last])
        }
    }

    /// How the default query's parameters are stored (most tracked queries have them).
    private static let defaultParamsText = QueryParams.default.storageNode.jsonString(.export)

    private static func save(_ query: TrackedQuery?, id: Int64, with statements: Statements) throws {
        guard let query else {
            try statements.deleteQuery.run(.integer(id))
            return
        }
        let keys = query.keys.isEmpty ? "" : query.keys.map(\.name).sorted().joined(separator: "/")
        let params = query.query.params.isDefault ? defaultParamsText : query.query.params.storageNode.jsonString(.export)
        try statements.upsertQuery.run(
            .integer(id), .text(query.query.path.description), .text(params), .integer(query.isComplete ? 1 : 0),
            .integer(query.isActive ? 1 : 0), .integer(query.lastUse), .text(keys))
    }

    /// Reads the tracked queries, pins and write locations.
    private func loadState(now: Int64) throws(StoreError) {
        let (queries, pins, locations, lastRow) = try read("read the tracked queries") { db in
            var queries: [TrackedQuery] = []
            for row in try Row.fetchAll(db, sql: "SELECT id, path, params, complete, active, lastUse, keys FROM queries") {
                let params = try QueryParams(storageNode: try Node(jsonText: row[2]))
                let keysText: String = row[6]
                let keys = keysText.isEmpty ? [] : keysText.split(separator: "/").map { ChildKey(unchecked: String($0)) }
                queries.append(
                    TrackedQuery(
                        id: row[0], query: QuerySpec(path: Path(unchecked: row[1] as String), params: params),
                        completeness: (row[3] as Bool) ? .complete : .partial,
                        activity: (row[4] as Bool) ? .active : .inactive, lastUse: row[5], keys: Set(keys)))
            }
            var pins: [QuerySpec] = []
            for row in try Row.fetchAll(db, sql: "SELECT path, params FROM pins") {
                let params = try QueryParams(storageNode: try Node(jsonText: row[1]))
                pins.append(QuerySpec(path: Path(unchecked: row[0] as String), params: params))
            }
            var locations = NumberedSlots<Path>()
            for row in try Row.fetchAll(db, sql: "SELECT seq, path FROM writes ORDER BY seq") {
                locations.insert(Path(unchecked: row[1] as String), at: Int(row[0] as Int64))
            }
            let lastRow = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM writes") ?? 0
            return (queries, pins, locations, lastRow)
        }
        for var query in queries {
            if query.isActive {
                // Active when the client stopped: it was in use until then. Nothing listens now.
                query.activity = .inactive
                query.lastUse = max(query.lastUse, now)
                queryChanges[query.id] = query
            }
            self.queries[query.query] = query
            nextQueryID = max(nextQueryID, query.id + 1)
        }
        self.pins = Set(pins)
        writeLocations = locations
        nextWriteRow = lastRow + 1
        if !locations.isEmpty { hasStoredSaves = true }
    }
}
