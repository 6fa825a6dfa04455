import GRDB

/// Plain SQLite through GRDB as a peer: the query, size and reopen workloads on tables laid out
/// as Ember would store the same data.
struct SQLitePeer {
    /// The top-ten query, by the JSON score in `value`.
    static let topTenSQL = "SELECT key, value FROM items ORDER BY json_extract(value, '$.score') DESC LIMIT 10"

    /// The top-ten query on `rows` rows `(key(i), '{"score":<score(i)>}')` of an in-memory
    /// `items(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID` (loaded untimed in one
    /// transaction; with `indexed`, then an index on `json_extract(value, '$.score')`, which the
    /// query is checked to use). `topTen` is seconds per query (every row of the result read);
    /// `live` is changes per second, each an autocommit
    /// `UPDATE items SET value = json_set(value, '$.score', ?) WHERE key = ?` (``BenchData``'s
    /// change formulas, `j` running on across runs) then the top-ten query. Unindexed, every
    /// query scans the whole table: keep `queries` and `changes` small.
    func query(rows: Int, indexed: Bool, queries: Int, changes: Int, runs: Int) -> (topTen: Measurement, live: Measurement) {
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue()
            try queue.write { db in
                try db.execute(sql: "CREATE TABLE items (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID")
                let insert = try db.makeStatement(sql: "INSERT INTO items (key, value) VALUES (?, ?)")
                for i in 0..<rows {
                    try insert.execute(arguments: [BenchData.key(i), "{\"score\":\(BenchData.score(i))}"])
                }
                if indexed {
                    try db.execute(sql: "CREATE INDEX items_score ON items (json_extract(value, '$.score'))")
                    let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + Self.topTenSQL).map { "\($0)" }.joined(separator: "; ")
                    guard plan.contains("items_score") else { throw PeerFailure("the top-ten query does not use the index: \(plan)") }
                }
            }
        } catch {
            let reason = "SQLite: loading \(rows) rows: \(error)"
            return (.notMeasured(reason), .notMeasured(reason))
        }
        let expected = min(rows, 10)
        func topTen(_ db: Database) throws {
            let cursor = try Row.fetchCursor(db.cachedStatement(sql: Self.topTenSQL))
            var count = 0
            var bytes = 0
            while let row = try cursor.next() {
                let key: String = row[0]
                let value: String = row[1]
                bytes &+= key.utf8.count &+ value.utf8.count
                count += 1
            }
            guard count == expected, bytes > 0 || expected == 0 else { throw PeerFailure("the top ten gave \(count) rows") }
        }
        let topTenFigure = Measurement.catching("SQLite") {
            try queue.inDatabase { db in
                let durations = try Repetitions.measure(size: queries, runs: runs) { count in
                    try Stopwatch.measure { for _ in 0..<count { try topTen(db) } }
                }
                return .latency(operations: queries, durations: durations)
            }
        }
        let live = Measurement.catching("SQLite") {
            try queue.inDatabase { db in
                let update = try db.makeStatement(sql: "UPDATE items SET value = json_set(value, '$.score', ?) WHERE key = ?")
                var j = 0
                let durations = try Repetitions.measure(size: changes, runs: runs) { count in
                    try Stopwatch.measure {
                        for _ in 0..<count {
                            try update.execute(arguments: [BenchData.changedScore(j, rows), BenchData.key(BenchData.changedIndex(j, rows))])
                            guard db.changesCount == 1 else { throw PeerFailure("an UPDATE changed \(db.changesCount) rows") }
                            try topTen(db)
                            j += 1
                        }
                    }
                }
                return .rate("changes/s", operations: changes, durations: durations)
            }
        }
        return (topTenFigure, live)
    }

    /// Bytes per row of a file database (WAL, checkpointed) in Ember's server-store layout
    /// `leaves(path TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID` holding
    /// `rows` rows `("items/" + key(i), String(i))` inserted in one transaction:
    /// `page_count × page_size / rows`; one run.
    func bytesPerRow(rows: Int) -> Measurement {
        Measurement.catching("SQLite") {
            let directory = try PeerDirectory(prefix: "sqlite-size")
            defer { directory.remove() }
            let queue = try DatabaseQueue(path: directory.file("leaves.sqlite"), configuration: Self.walConfiguration())
            try queue.write { db in
                try db.execute(sql: Self.createLeaves)
                let insert = try db.makeStatement(sql: "INSERT INTO leaves (path, value) VALUES (?, ?)")
                for i in 0..<rows { try insert.execute(arguments: ["items/" + BenchData.key(i), String(i)]) }
            }
            let bytes = try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
                return pages * pageSize
            }
            try queue.close()
            return Figure(runs: [Double(bytes) / Double(max(1, rows))], unit: .bytes("B/leaf"))
        }
    }

    /// Seconds to open a file database of `leaves` rows `("items/o<i/1000>/k<i%1000>",
    /// String(i))` in the `leaves` layout (built once: WAL, `synchronous = NORMAL`, then closed)
    /// and answer the first query, `SELECT value FROM leaves WHERE path = 'items/o500/k500'`
    /// (checked; the probe is the last row below 500,500): timed from before the
    /// `DatabaseQueue` opens to after the query, one warm-up then `runs` runs.
    func reopen(leaves: Int, runs: Int) -> Measurement {
        let leaves = max(1, leaves)
        let probe = min(500_500, leaves - 1)
        return Measurement.catching("SQLite") {
            let directory = try PeerDirectory(prefix: "sqlite-reopen")
            defer { directory.remove() }
            let path = directory.file("leaves.sqlite")
            let build = try DatabaseQueue(path: path, configuration: Self.walConfiguration())
            try build.write { db in
                try db.execute(sql: Self.createLeaves)
                let insert = try db.makeStatement(sql: "INSERT INTO leaves (path, value) VALUES (?, ?)")
                for i in 0..<leaves { try insert.execute(arguments: ["items/o\(i / 1000)/k\(i % 1000)", String(i)]) }
            }
            try build.close()
            let sql = "SELECT value FROM leaves WHERE path = 'items/o\(probe / 1000)/k\(probe % 1000)'"
            var durations: [Duration] = []
            for run in 0...runs {
                let start = ContinuousClock.now
                let queue = try DatabaseQueue(path: path, configuration: Self.walConfiguration())
                let value = try queue.read { db in try String.fetchOne(db, sql: sql) }
                let elapsed = ContinuousClock.now - start
                try queue.close()
                guard value == String(probe) else { throw PeerFailure("the probe read \(value ?? "nothing"), not \(probe)") }
                if run > 0 { durations.append(elapsed) }
            }
            return .latency(durations: durations)
        }
    }

    static let createLeaves = "CREATE TABLE leaves (path TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID"

    /// WAL with `synchronous = NORMAL`, as Ember's stores open their files.
    static func walConfiguration() -> Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        return configuration
    }
}
