import EmberCore
import Foundation
import GRDB

extension StoreLocation {
    /// Opens the SQLite database here with `configuration` and brings its schema up to date
    /// with `migrator`.
    /// - Parameter what: what the store is, for the error ("the store", "the server's store").
    /// - Throws: ``StoreError`` naming the location, or the one `configuration` threw.
    func open(_ what: String, configuration: Configuration = Configuration(), migrator: DatabaseMigrator)
        throws(StoreError) -> DatabaseQueue
    {
        do {
            let queue: DatabaseQueue
            switch self {
            case .file(let path): queue = try DatabaseQueue(path: path, configuration: configuration)
            case .memory: queue = try DatabaseQueue(configuration: configuration)
            }
            try migrator.migrate(queue)
            return queue
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError("cannot open \(what) at \(self)", error)
        }
    }

    /// Opens a store that commits as `durability` says: write-ahead log (for a file) and the
    /// matching `synchronous` setting; with `maximumSize`, a page limit that fails commits as a
    /// full disk would beyond about that many bytes.
    ///
    /// A file is opened in SQLite's exclusive locking mode, set before the log is first read: the
    /// database directory's lock (`DirectoryLock`) already keeps every other process out, so the
    /// `fcntl` locks SQLite takes and drops around each transaction, and the shared-memory index
    /// of the log (`-shm`), guard against nothing. Without them a one-row commit makes no `fcntl`
    /// call where it made about seven (`strace -c`, 68,494 for 10,000 durable writes), and the
    /// log's index is kept in the connection's memory. Another program that opens the file while
    /// this connection is open (the `sqlite3` shell) is told the database is locked.
    func openDurable(
        _ what: String, durability: Durability, maximumSize: Int? = nil, migrator: DatabaseMigrator
    ) throws(StoreError) -> DatabaseQueue {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            if let maximumSize {
                let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
                try db.execute(sql: "PRAGMA max_page_count = \(max(1, maximumSize / pageSize))")
            }
            if case .file = self {
                let locking = try String.fetchOne(db, sql: "PRAGMA locking_mode = EXCLUSIVE")
                if locking?.lowercased() != "exclusive" {
                    throw StoreError("\(self) cannot be opened in exclusive locking mode (it is \(locking ?? "unknown"))")
                }
                let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                if mode?.lowercased() != "wal" {
                    throw StoreError("the journal of \(self) cannot be switched to WAL (it is \(mode ?? "unknown"))")
                }
            }
            try db.execute(sql: "PRAGMA synchronous = \(durability.synchronousPragma)")
        }
        return try open(what, configuration: configuration, migrator: migrator)
    }
}

extension StoreLocation {
    /// Opens the SQLite file here for reading only, for a database directory that cannot be
    /// written: as immutable (no `-shm` needed) when no write-ahead log waits to be
    /// checkpointed, else reading the log. Its schema must be up to date already.
    /// - Throws: ``StoreError`` naming the file, and saying to open it once with write access
    ///   when that is what it needs.
    func openReadOnly(_ what: String, migrator: DatabaseMigrator) throws(StoreError) -> DatabaseQueue {
        guard case .file(let path) = self else { return try open(what, migrator: migrator) }
        var configuration = Configuration()
        configuration.readonly = true
        let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber
        let pending = (log?.intValue ?? 0) > 0
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        do {
            let queue = try DatabaseQueue(path: pending ? path : "file:\(encoded)?immutable=1", configuration: configuration)
            guard try queue.read(migrator.hasCompletedMigrations) else {
                throw StoreError(
                    "\(what) at \(path) was written by an earlier version of ember and the directory is read-only: "
                        + "open it once with write access")
            }
            return queue
        } catch let error as StoreError {
            throw error
        } catch {
            let hint = pending ? " (its write-ahead log waits to be checkpointed: open it once with write access)" : ""
            throw StoreError("cannot open \(what) at \(path) for reading\(hint)", error)
        }
    }
}

extension DatabaseQueue {
    /// Sets `max_page_count` so that the file stays within about `bytes` (`nil`: SQLite's
    /// largest), never below the pages it has.
    func setMaximumSize(_ bytes: Int?, of what: String, at location: StoreLocation) throws(StoreError) {
        do {
            try inDatabase { db in
                let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
                let pages = bytes.map { max(1, $0 / pageSize) } ?? 4_294_967_294
                _ = try Int.fetchOne(db, sql: "PRAGMA max_page_count = \(pages)")
            }
        } catch {
            throw StoreError("cannot limit the size of \(what) at \(location)", error)
        }
    }

    /// Saves `value` under `key` in the key/value table `table` (`nil` removes it), durably, in
    /// one transaction; with `creatingTable`, the table is made first when it is missing.
    /// - Parameters:
    ///   - what: what is saved, for the message ("the auth token").
    ///   - store: the store, for the message ("the client's store").
    /// - Throws: ``StoreError`` when the write fails; the saved value is then as it was.
    func save(
        _ value: String?, forKey key: String, in table: String, creatingTable: Bool = false, _ what: String, of store: String,
        at location: StoreLocation
    ) throws(StoreError) {
        do {
            try inTransaction { db in
                if creatingTable {
                    try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(table) (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID")
                }
                if let value {
                    try db.execute(sql: "INSERT OR REPLACE INTO \(table) (key, value) VALUES (?, ?)", arguments: [key, value])
                } else {
                    try db.execute(sql: "DELETE FROM \(table) WHERE key = ?", arguments: [key])
                }
                return .commit
            }
        } catch {
            throw StoreError("cannot save \(what) in \(store) at \(location)", error)
        }
    }

    /// Runs `body` in one transaction, as GRDB's `inTransaction` does, with `BEGIN`, `COMMIT`
    /// and `ROLLBACK` prepared once (GRDB compiles them again for every transaction: 40,000
    /// instructions of a one-row commit of 120,000, measured with callgrind). A commit or
    /// `body` that fails rolls the transaction back and throws.
    /// - Throws: what `body` throws, or SQLite's error.
    /// - Parameter prepared: `BEGIN` and `COMMIT` prepared by the caller and kept, run straight
    ///   through SQLite (looking them up by their SQL and GRDB's `execute` cost a one-leaf commit
    ///   3,000 instructions); `nil`: taken from the connection's statement cache.
    func inTickTransaction(
        prepared: (begin: BulkStatement, commit: BulkStatement)? = nil, _ body: (Database) throws -> Database.TransactionCompletion
    ) throws {
        try writeWithoutTransaction { db in
            if let prepared { try prepared.begin.run() } else { try db.cachedStatement(sql: "BEGIN").execute() }
            do {
                switch try body(db) {
                case .commit:
                    if let prepared { try prepared.commit.run() } else { try db.cachedStatement(sql: "COMMIT").execute() }
                case .rollback: try db.cachedStatement(sql: "ROLLBACK").execute()
                }
            } catch {
                if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                throw error
            }
        }
    }

    /// As ``reading(_:of:at:_:)``, outside a transaction: for a store whose only writer is the
    /// caller's own thread, so that nothing can commit between the statements of `body`.
    /// - Parameter action: made only when it fails (a location read names its path, whose text
    ///   cost a read of a new location a tenth of its work).
    func readingDirectly<T>(_ action: @autoclosure () -> String, of what: String, at location: StoreLocation, _ body: (Database) throws -> T)
        throws(StoreError) -> T
    {
        try Self.mappingFailures(action, of: what, at: location) { try inDatabase(body) }
    }

    /// Runs `body` in a read, with its failures as ``StoreError``s: a stored value that is not
    /// JSON "holds a bad value", anything else "cannot `action`".
    /// - Parameter what: the store, for the message ("the server's store").
    func reading<T>(_ action: @autoclosure () -> String, of what: String, at location: StoreLocation, _ body: (Database) throws -> T)
        throws(StoreError) -> T
    {
        try Self.mappingFailures(action, of: what, at: location) { try read(body) }
    }

    /// `run`'s result, its failures as ``StoreError``s.
    private static func mappingFailures<T>(_ action: () -> String, of what: String, at location: StoreLocation, _ run: () throws -> T)
        throws(StoreError) -> T
    {
        do {
            return try run()
        } catch let error as StoreError {
            throw error
        } catch let error as EmberCore.DatabaseError {
            throw StoreError("\(what) at \(location) holds a bad value: \(error)")
        } catch {
            throw StoreError("cannot \(action()) of \(what) at \(location)", error)
        }
    }
}
