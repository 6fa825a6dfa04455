import EmberStorage
import GRDB

/// Plain SQLite through GRDB, set up as Ember's stores are (exclusive locking, WAL, the
/// durability's `synchronous` setting), doing the closest equivalent of a durability workload
/// with nothing of Ember around it: the floor the stores are measured against.
struct RawSQLite {
    let queue: DatabaseQueue

    /// Opens (or creates) the file `path` in exclusive locking mode and WAL mode with
    /// `synchronous` set as `durability` sets it, as `StoreLocation.openDurable` opens Ember's
    /// stores.
    init(path: String, durability: Durability) {
        var configuration = Configuration()
        let synchronous = Self.synchronous(durability)
        configuration.prepareDatabase { db in
            _ = try String.fetchOne(db, sql: "PRAGMA locking_mode = EXCLUSIVE")
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
        }
        queue = try! DatabaseQueue(path: path, configuration: configuration)
    }

    static func synchronous(_ durability: Durability) -> String {
        switch durability {
        case .off: "OFF"
        case .normal: "NORMAL"
        case .full: "FULL"
        }
    }

    /// Creates the server store's layout: `leaves(path TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID`.
    func createLeaves() {
        try! queue.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS leaves (path TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID")
        }
    }

    /// Upserts `rows` into `leaves`, `batch` rows per transaction.
    func upsert(_ rows: [(path: String, value: String)], batch: Int) {
        var start = 0
        while start < rows.count {
            let end = min(start + batch, rows.count)
            try! queue.inTransaction { db in
                let statement = try db.cachedStatement(
                    sql: "INSERT INTO leaves (path, value) VALUES (?, ?) ON CONFLICT(path) DO UPDATE SET value = excluded.value")
                for index in start..<end { try statement.execute(arguments: [rows[index].path, rows[index].value]) }
                return .commit
            }
            start = end
        }
    }

    /// Reads every row of `leaves` in path order, as strings; the number of rows.
    func readLeaves() -> Int {
        try! queue.read { db in
            var count = 0
            var bytes = 0
            let rows = try Row.fetchCursor(db, sql: "SELECT path, value FROM leaves ORDER BY path")
            while let row = try rows.next() {
                let path: String = row[0]
                let value: String = row[1]
                bytes &+= path.utf8.count &+ value.utf8.count
                count += 1
            }
            precondition(bytes > 0 || count == 0)
            return count
        }
    }

    /// Reads every row of a client store's write queue in order, as strings; the number of rows.
    func readWrites() -> Int {
        try! queue.read { db in
            var count = 0
            var bytes = 0
            let rows = try Row.fetchCursor(db, sql: "SELECT key, path, kind, value FROM writes ORDER BY seq")
            while let row = try rows.next() {
                let key: String = row[0]
                let path: String = row[1]
                let kind: String = row[2]
                let value: String = row[3]
                bytes &+= key.utf8.count &+ path.utf8.count &+ kind.utf8.count &+ value.utf8.count
                count += 1
            }
            precondition(bytes > 0 || count == 0)
            return count
        }
    }

    func close() {
        try! queue.close()
    }
}
