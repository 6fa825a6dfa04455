import EmberCore
import Foundation
import GRDB

/// The server's durable copy of its tree, on SQLite: one row per leaf and per priority.
///
/// The server serves from memory and writes through here. It marks the paths it changed
/// (``markChanged(_:)``), and at the end of an engine tick ``commit(_:)`` writes them in one
/// transaction, read from the tree as it is then. Several changes to one location in a tick
/// cost one rewrite, and a multi-path update lands whole or not at all. ``load()`` rebuilds the
/// tree when the server starts.
///
/// Rows: `path` is the keys joined by `/` (the root is the empty string, a priority the extra
/// key `.priority`), `value` the leaf's JSON. Keys cannot contain `/`, and `/` sorts just below
/// `0`, so the rows below `a/b` are exactly those in `('a/b/', 'a/b0')`.
public final class ServerStore {
    private static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-leaves") { db in
            try db.create(table: "leaves", options: [.withoutRowID]) { table in
                table.primaryKey("path", .text)
                table.column("value", .text).notNull()
            }
        }
        migrator.registerMigration("v2-answers") { db in
            // The answers to keyed writes, committed with the data they wrote: a client that
            // sends a write again after a restart gets the first answer, not a second
            // application. `code` is NULL for `ok`.
            try db.create(table: "answers") { table in
                table.autoIncrementedPrimaryKey("seq")
                table.column("key", .text).notNull().unique()
                table.column("code", .text)
                table.column("message", .text)
                table.column("path", .text)
            }
        }
        migrator.registerMigration("v3-ledger") { db in
            // The answered writes, exactly: each writer's watermark, and the refusals the client
            // may still ask about. Replaces `answers`, which only keys of earlier versions use.
            try db.create(table: "writers", options: [.withoutRowID]) { table in
                table.primaryKey("writer", .text)
                table.column("client", .text).notNull().indexed()
                table.column("watermark", .integer).notNull()
            }
            try db.create(table: "refusals", options: [.withoutRowID]) { table in
                table.column("writer", .text).notNull()
                table.column("seq", .integer).notNull()
                table.column("code", .text).notNull()
                table.column("message", .text).notNull()
                table.column("path", .text)
                table.primaryKey(["writer", "seq"])
            }
        }
        migrator.registerMigration("v4-indexes") { db in
            // The indexes kept with the data (ServerStore+Indexes): each location and order
            // kept, and its children's sort keys (IndexSortKey), from which a query reads a
            // window without loading the location.
            try db.create(table: "indexes") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("location", .text).notNull()
                table.column("ord", .text).notNull()
                table.uniqueKey(["location", "ord"])
            }
            try db.create(table: "index_entries", options: [.withoutRowID]) { table in
                table.column("idx", .integer).notNull()
                table.column("sortkey", .blob).notNull()
                table.primaryKey(["idx", "sortkey"])
            }
        }
        return migrator
    }()

    /// Where the data lives.
    public let location: StoreLocation
    /// When commits reach the disk.
    public let durability: Durability
    let queue: DatabaseQueue
    /// The statements of the tick's commits, once the first has prepared them.
    private var tickStatements: TickStatements?
    /// The statements reading a location, once the first read has prepared them (GRDB's cache
    /// of statements hashes the SQL text on each look-up: two a read, about 1,600 instructions
    /// of every write to a new location, callgrind).
    private var readStatements: ReadStatements?
    /// The last locations (up to ``occupiedKept``) a read found rows below while looking for
    /// the widest empty location around a new one (``widestEmptyLocation(around:upTo:_:)``):
    /// they and their ancestors are not looked at again, so writers pushing to a few lists in
    /// turn pay no seek. Knowledge that went stale (their rows removed since) only makes a read
    /// load a narrower location than it could.
    private var occupied: [Path] = []
    /// The next slot of ``occupied`` to replace once it is full.
    private var nextOccupiedSlot = 0
    /// How many locations known to hold rows are kept.
    static let occupiedKept = 8
    /// The paths changed since the last commit, outermost only (a change below a changed
    /// location is part of it).
    private var changed = ChangedPaths()
    /// Whether the rows hold exactly the tree that ``load()`` returned (no row was left out), so
    /// that a commit given the tree as committed knows which rows exist without asking.
    private var rowsMatchTree = false
    /// Answers to writes with keys of earlier versions, recorded since the last commit.
    private var answers: [(key: String, failure: EmberCore.DatabaseError?)] = []
    /// Changes to the record of answered writes since the last commit, in order. They stay
    /// when a tick is undone: an answer, once given, is kept (a refused tick's writes get
    /// their refusals recorded after them).
    private var ledger: [LedgerChange] = []
    /// How many answers the store keeps; older ones are deleted as new ones arrive.
    public let answerCapacity: Int
    /// The indexes the store keeps in step with the data (``ServerStore+Indexes``), read when
    /// it opens.
    var keptIndexes: [StoredIndex] = []

    /// Opens (or creates) the store.
    /// - Throws: ``StoreError`` naming the file when it cannot be opened, is not an SQLite
    ///   database, or cannot be prepared (a read-only directory, a full disk).
    /// - Parameter maximumSize: when given, the file never grows beyond about this many bytes:
    ///   a commit that would need more fails as on a full disk ("database or disk is full"),
    ///   and the server refuses its writes.
    /// - Parameter readOnly: open for reading only (a directory that cannot be written): the
    ///   server refuses writes, and nothing is ever committed.
    public init(
        at location: StoreLocation, durability: Durability, answerCapacity: Int = 65_536, maximumSize: Int? = nil,
        readOnly: Bool = false
    ) throws(StoreError) {
        self.location = location
        self.durability = durability
        self.answerCapacity = max(1, answerCapacity)
        self.isReadOnly = readOnly
        if readOnly {
            queue = try location.openReadOnly("the server's store", migrator: Self.migrator)
        } else {
            queue = try location.openDurable(
                "the server's store", durability: durability, maximumSize: maximumSize, migrator: Self.migrator)
        }
        keptIndexes = try readKeptIndexes()
    }

    /// Whether the store was opened for reading only.
    public let isReadOnly: Bool

    /// Whether changes wait for ``commit(_:)``.
    public var hasChanges: Bool { !changed.isEmpty || !answers.isEmpty || !ledger.isEmpty }

    /// Whether a change waiting for the next commit lies at, above or below `path`.
    /// - Complexity: O(d) for a path of depth d.
    public func hasChanges(touching path: Path) -> Bool {
        changed.touches(path)
    }

    /// Records changes to the record of answered writes, to be committed with the data.
    /// - Complexity: O(k) for k changes.
    public func recordLedger(_ changes: [LedgerChange]) {
        ledger += changes
    }

    /// Records the answer given to the keyed write `key` (`nil`: accepted), to be committed with
    /// the data.
    /// - Complexity: O(1).
    public func recordAnswer(_ key: String, failure: EmberCore.DatabaseError?) {
        answers.append((key, failure))
    }

    /// Forgets the data changes marked since the last commit (their tick was refused). The
    /// answers stay, for the next commit.
    public func discardChanges() {
        changed.removeAll()
    }

    /// Records that the tree changed at `path` (and possibly below it).
    /// - Complexity: O(d) for a path of depth d.
    public func markChanged(_ path: Path) {
        changed.fold(path)
    }

    /// Writes every location changed since the last commit, as `root` now holds it, in one
    /// transaction. On failure nothing of it is written, and the changes stay marked.
    /// - Throws: ``StoreError`` with SQLite's reason (disk full, read-only file, I/O error).
    /// - Complexity: O(c·d + r) statements for c changed locations of depth d and r rows
    ///   written.
    /// - Parameter shapes: what the rows of a changed location and of its ancestors held at the
    ///   last commit, when the caller knows it (`nil` from the function: not known): a changed
    ///   location that held a leaf or nothing needs no search of the rows below it, and an
    ///   ancestor whose rows of its own stay needs no statement.
    /// - Parameter isLoaded: whether the tree holds the whole of a location (by default, every
    ///   location: the tree is whole). An ancestor of a changed location that it does not
    ///   hold keeps its priority while rows remain below it.
    /// - Parameter emptied: whether a deletion of the tick left a location the tree does not
    ///   hold without data: its priority goes, even if it holds data again.
    /// - Parameter storingWatermark: whether a writer's new watermark goes into the store with
    ///   the commit (by default, every writer's): a writer none of whose writes can be sent
    ///   again after a restart needs no durable watermark (see `Server.storesWatermark`).
    public func commit(
        _ root: Node, shapes: ((Path) -> CommittedShape?)? = nil, isLoaded: (Path) -> Bool = { _ in true },
        emptied: (Path) -> Bool = { _ in false }, storingWatermark: ((String) -> Bool)? = nil
    ) throws(StoreError) {
        guard hasChanges else { return }
        if isReadOnly {
            // Nothing was written (the server refuses writes); the record of refusals has
            // nowhere to go.
            changed.removeAll()
            answers = []
            ledger = []
            return
        }
        let paths = changed.outermost
        let answers = self.answers
        // Folded and sorted out here, before the transaction: `storingWatermark` is the
        // caller's, not the store's queue's, to run.
        let ledger = Self.coalesced(self.ledger, storingWatermark: storingWatermark)
        let capacity = answerCapacity
        let kept = keptIndexes
        do {
            try queue.inTickTransaction(prepared: tickStatements.map { ($0.begin, $0.commit) }) { db in
                // Prepared on the first commit and kept: looking five statements up by their
                // SQL cost a one-leaf commit a tenth of its instructions.
                let statements = try tickStatements ?? TickStatements(db)
                tickStatements = statements
                let writer = statements.rows
                let previous = rowsMatchTree ? shapes : nil
                let indexChanges = try Self.indexChanges(for: paths, in: kept, with: writer)
                // Each changed location's node, looked up once.
                let nodes = paths.map { root.child(at: $0) }
                for (path, node) in zip(paths, nodes) { try Self.rewrite(path, to: node, previous: previous, with: writer) }
                try Self.fixAncestors(
                    of: paths, holding: nodes, from: root, previous: previous, isLoaded: isLoaded, emptied: emptied, with: writer)
                try Self.apply(indexChanges, with: writer, in: db)
                try Self.record(
                    answers, ledger, capacity: capacity, in: db, watermarks: (statements.watermarkUpdate, statements.watermark))
                return .commit
            }
        } catch {
            throw StoreError("cannot commit \(paths.count) change(s) to the server's store at \(location)", error)
        }
        changed.removeAll()
        self.answers = []
        self.ledger = []
    }

    /// Replaces the rows at and below `path` with the pieces `produce` delivers, in one
    /// transaction: all of them or, when either side throws (bad data, Ctrl-C at `checkpoint`,
    /// SQLite) or the process dies, none. `produce` runs on a thread of its own and its pieces
    /// become rows there (``ImportPipeline``), while this thread writes them. The ancestors of
    /// `path` follow: a leaf above it goes when rows were written, and a priority above it stays
    /// exactly while rows remain below it. Nothing may wait for a commit (commit first).
    /// - Parameter checkpoint: called on this thread before each batch with how far into the
    ///   document it reaches (progress), and may throw to stop the import.
    /// - Returns: how many rows were written.
    /// - Throws: what `produce` or `checkpoint` throws, or ``StoreError`` with SQLite's reason.
    /// - Complexity: O(r log R) for r rows written into R.
    public func replace(
        at path: Path, producing produce: @escaping @Sendable (_ deliver: (ExportReader.Piece, _ offset: Int) throws -> Void) throws -> Void,
        checkpoint: (_ offset: Int) throws -> Void, indexing declared: [(location: Path, order: Index)] = []
    ) throws -> Int {
        precondition(changed.isEmpty, "commit the tick's changes first")
        if isReadOnly {
            throw StoreError("the server's store at \(location) is read-only", code: EmberCore.ErrorCode.readOnly)
        }
        // The indexes at or below `path`, kept or declared, are gathered from the pieces as
        // they are parsed; a kept index above it moves the one child the import replaces; a
        // declared one above it is built from the rows.
        let kept = keptIndexes
        var streamed = kept.filter { path.contains($0.location) }.map { (location: $0.location, order: $0.order) }
        var scanned: [(location: Path, order: Index)] = []
        for (location, order) in declared where !kept.contains(where: { $0.location == location && $0.order == order }) {
            if path.contains(location) {
                streamed.append((location, order))
            } else if location.contains(path) {
                scanned.append((location, order))
            }
        }
        let above = kept.filter { !path.contains($0.location) }
        let gathered = GatheredIndexes()
        let pipeline = ImportPipeline()
        let finished = DispatchSemaphore(value: 0)
        let producer = Thread { [streamed] in
            var batch = ImportBatch()
            var indexer = ImportIndexer(streamed)
            do {
                try produce { piece, offset in
                    batch.add(piece, offset: offset)
                    indexer.add(piece)
                    if batch.count >= Self.importBatchRows {
                        try pipeline.push(batch)
                        batch = ImportBatch()
                    }
                }
                // Handed over before the last batch: the writer reads it once the pipeline
                // is finished, whose lock orders the two.
                gathered.indexer = indexer
                try pipeline.push(batch)
                pipeline.finish(nil)
            } catch {
                pipeline.finish(error)
            }
            finished.signal()
        }
        // Parsing recurses once per level of the document.
        producer.stackSize = 16 << 20
        producer.start()
        defer {
            pipeline.cancel()
            finished.wait()
        }
        var written = 0
        var failure: (any Error)?
        var built: [StoredIndex] = []
        do {
            try queue.inTransaction { db in
                let writer = try Self.rows.writer(in: db)
                let indexChanges = try Self.indexChanges(for: [path], in: above, with: writer)
                try writer.deleteSubtree(path)
                do {
                    while let batch = try pipeline.pop() {
                        try checkpoint(batch.offset)
                        written += try writer.apply(batch)
                    }
                } catch {
                    pipeline.cancel()
                    failure = error
                    return .rollback
                }
                var ancestor = path
                while ancestor.removeLastKey() != nil {
                    if written > 0 { try writer.deleteRow(LeafRows.rowPath(ancestor)) }
                    if try !writer.hasRows(below: ancestor) { try writer.deleteRow(LeafRows.rowPath(ancestor.child(.priority))) }
                }
                try Self.apply(indexChanges, with: writer, in: db)
                // The indexes the rules declare where the import lands are built with it, so
                // that the first query after it reads them.
                for target in gathered.indexer?.targets ?? [] {
                    let index = try Self.defineIndex(at: target.location, target.order, in: db)
                    if target.needsScan {
                        try Self.rebuildEntries(of: index, in: db)
                    } else {
                        try Self.insertEntries(target.keys.values.map(IndexSortKey.init), of: index, in: db)
                    }
                    if !kept.contains(index) { built.append(index) }
                }
                for (location, order) in scanned { built.append(try Self.insertIndex(at: location, order, in: db)) }
                return .commit
            }
        } catch {
            throw StoreError("cannot import into the server's store at \(location)", error)
        }
        if let failure { throw failure }
        keptIndexes += built
        return written
    }

    /// The rows an import hands over at a time.
    static let importBatchRows = 4096

    /// What an import's reading thread gathered for the indexes, handed to the writing thread
    /// when the pipeline finishes (its lock orders the write before the read).
    private final class GatheredIndexes: @unchecked Sendable {
        var indexer: ImportIndexer?
    }

    /// Commits the record of answered writes alone, without the data: after a tick whose
    /// commit failed, its refusals are made durable as soon as the store can take a few rows,
    /// so that a client sending a refused write again after a restart is answered with the
    /// refusal instead of having it applied.
    /// - Throws: ``StoreError`` when even that cannot be committed (the record stays, for the
    ///   next commit).
    public func commitLedger() throws(StoreError) {
        guard !isReadOnly, !ledger.isEmpty || !answers.isEmpty else { return }
        let answers = self.answers
        let ledger = self.ledger
        let capacity = answerCapacity
        do {
            try queue.inTransaction { db in
                try Self.record(answers, Self.coalesced(ledger), capacity: capacity, in: db)
                return .commit
            }
        } catch {
            throw StoreError("cannot commit the answered writes to the server's store at \(location)", error)
        }
        self.answers = []
        self.ledger = []
    }

    /// Limits the file to about `bytes` (`nil`: no limit beyond SQLite's): a commit that needs
    /// more fails as on a full disk. What a test or the torture run uses to fill the disk.
    public func setMaximumSize(_ bytes: Int?) throws(StoreError) {
        try queue.setMaximumSize(bytes, of: "the server's store", at: location)
    }

    /// The record of answered writes: each writer with its watermark and refusals.
    /// - Throws: ``StoreError`` when the file cannot be read.
    public func loadLedger() throws(StoreError) -> [StoredWriter] {
        try queue.reading("read the answered writes", of: "the server's store", at: location) { db in
            var refusals: [String: [Int64: EmberCore.DatabaseError]] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT writer, seq, code, message, path FROM refusals")
            while let row = try rows.next() {
                let path: String? = row[4]
                refusals[row[0], default: [:]][row[1]] = .restored(
                    code: row[2], message: row[3], at: path.map(Path.init(unchecked:)))
            }
            return try Row.fetchAll(db, sql: "SELECT writer, watermark FROM writers").map { row in
                StoredWriter(writer: row[0], watermark: row[1], refusals: refusals[row[0]] ?? [:])
            }
        }
    }

    /// Writes the record of answered writes: the answers to keys of earlier versions, and the
    /// ledger's changes, already folded (``coalesced(_:storingWatermark:)``).
    private static func record(
        _ answers: [(key: String, failure: EmberCore.DatabaseError?)], _ ledger: [LedgerChange], capacity: Int, in db: Database,
        watermarks: (update: BulkStatement, upsert: BulkStatement)? = nil
    ) throws {
        if !answers.isEmpty { try insert(answers, capacity: capacity, in: db) }
        for change in ledger {
            if let watermarks, case .watermark(let writer, let client, let sequence) = change {
                // A writer seen before, the usual case: its row updated in place (an `UPDATE`
                // by the key, a third cheaper than the upsert that meets its conflict).
                try watermarks.update.run(.integer(sequence), .text(writer))
                if db.changesCount == 0 { try watermarks.upsert.run(.text(writer), .text(client), .integer(sequence)) }
            } else {
                try apply(change, in: db)
            }
        }
    }

    /// The statements of ``loadLocation(_:skipping:interiorAncestors:)``, prepared on the first
    /// read and kept for the life of the connection, as ``TickStatements`` are.
    private final class ReadStatements {
        /// Whether a row is at a path (an ancestor holding a leaf).
        let ancestor: BulkStatement
        /// A location's rows (``LeafRows/load(at:in:problems:bytes:skipping:unappliedPriorities:range:)``).
        let range: BulkStatement

        /// Whether a row lies strictly below a location (``ServerStore/widestEmptyLocation(around:upTo:_:)``).
        let below: BulkStatement
        /// Whether the table holds any row (below the root).
        let any: BulkStatement

        init(_ db: Database) throws {
            ancestor = try BulkStatement("SELECT 1 FROM leaves WHERE path = ?", in: db)
            range = try BulkStatement(ServerStore.rows.rangeSQL, in: db)
            below = try BulkStatement("SELECT 1 FROM leaves WHERE path >= ? AND path < ? LIMIT 1", in: db)
            any = try BulkStatement("SELECT 1 FROM leaves LIMIT 1", in: db)
        }
    }

    /// The statements every tick's commit runs, prepared on the first and kept for the life of
    /// the connection. A class, as its ``LeafRows/Writer`` is: a commit copied the structs'
    /// twenty references, retained and released, several times (together 3,000 instructions of
    /// the 20,600 a one-leaf commit spent inside its transaction, callgrind).
    private final class TickStatements {
        /// The leaves' rows.
        let rows: LeafRows.Writer
        /// A writer's new watermark (never lowered).
        let watermark: BulkStatement
        /// The same for a writer whose row is there.
        let watermarkUpdate: BulkStatement
        /// The transaction's `BEGIN` and `COMMIT`.
        let begin: BulkStatement
        let commit: BulkStatement

        init(_ db: Database) throws {
            rows = try ServerStore.rows.writer(in: db)
            watermark = try BulkStatement(Self.watermarkSQL, in: db)
            watermarkUpdate = try BulkStatement("UPDATE writers SET watermark = max(watermark, ?) WHERE writer = ?", in: db)
            begin = try BulkStatement("BEGIN", in: db)
            commit = try BulkStatement("COMMIT", in: db)
        }

        static let watermarkSQL = """
            INSERT INTO writers (writer, client, watermark) VALUES (?, ?, ?)
            ON CONFLICT(writer) DO UPDATE SET watermark = max(watermark, excluded.watermark)
            """
    }

    /// `changes` with each writer's successive watermarks folded into its last one (a tick of
    /// 100,000 writes from one client writes one row, not 100,000), in the same order otherwise,
    /// then without the watermarks of the writers `storingWatermark` says need none (asked once
    /// a writer).
    /// - Complexity: O(c) for c changes.
    static func coalesced(_ changes: [LedgerChange], storingWatermark: ((String) -> Bool)?) -> [LedgerChange] {
        let folded = coalesced(changes)
        guard let storingWatermark else { return folded }
        func dropped(_ change: LedgerChange) -> Bool {
            if case .watermark(let writer, _, _) = change { !storingWatermark(writer) } else { false }
        }
        // The usual tick keeps everything or drops its one watermark: no copy when nothing goes.
        guard folded.contains(where: dropped) else { return folded }
        return folded.filter { !dropped($0) }
    }

    /// `changes` with each writer's successive watermarks folded into its last one.
    /// - Complexity: O(c) for c changes.
    static func coalesced(_ changes: [LedgerChange]) -> [LedgerChange] {
        // One writer's one write, the usual tick of a writer waiting for each answer: nothing to
        // fold (the dictionary cost a one-write commit 2,200 instructions).
        if changes.count < 2 { return changes }
        var result: [LedgerChange] = []
        result.reserveCapacity(changes.count)
        var pending: [String: Int] = [:]
        for change in changes {
            switch change {
            case .watermark(let writer, let client, let sequence):
                if let index = pending[writer], case .watermark(_, _, let earlier) = result[index] {
                    result[index] = .watermark(writer: writer, client: client, sequence: max(earlier, sequence))
                } else {
                    pending[writer] = result.count
                    result.append(change)
                }
            case .forgetWriter(let writer):
                pending[writer] = nil
                result.append(change)
            case .refusal, .forgetRefusals:
                result.append(change)
            }
        }
        return result
    }

    private static func apply(_ change: LedgerChange, in db: Database) throws {
        switch change {
        case .watermark(let writer, let client, let sequence):
            try db.cachedStatement(sql: TickStatements.watermarkSQL).execute(arguments: [writer, client, sequence])
        case .refusal(let writer, let sequence, let error):
            try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO refusals (writer, seq, code, message, path) VALUES (?, ?, ?, ?, ?)"
            ).execute(arguments: [writer, sequence, error.code, error.message, error.path?.description])
        case .forgetWriter(let writer):
            try db.cachedStatement(sql: "DELETE FROM writers WHERE writer = ?").execute(arguments: [writer])
            try db.cachedStatement(sql: "DELETE FROM refusals WHERE writer = ?").execute(arguments: [writer])
        case .forgetRefusals(let writer, let below):
            try db.cachedStatement(sql: "DELETE FROM refusals WHERE writer = ? AND seq < ?").execute(arguments: [writer, below])
        }
    }

    /// The answers the store keeps, oldest first.
    /// - Throws: ``StoreError`` when the file cannot be read.
    public func loadAnswers() throws(StoreError) -> [(key: String, failure: EmberCore.DatabaseError?)] {
        try queue.reading("read the answers", of: "the server's store", at: location) { db in
            var answers: [(key: String, failure: EmberCore.DatabaseError?)] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT key, code, message, path FROM answers ORDER BY seq")
            while let row = try rows.next() {
                let key: String = row[0]
                if let code: String = row[1] {
                    let path: String? = row[3]
                    answers.append((key, .restored(code: code, message: row[2] ?? code, at: path.map(Path.init(unchecked:)))))
                } else {
                    answers.append((key, nil))
                }
            }
            return answers
        }
    }

    /// The tree the store holds, and the rows left out of it because they would not pass a
    /// write's checks (each with its path), so that one bad row never locks the rest away.
    /// - Throws: ``StoreError`` when the file cannot be read.
    /// - Complexity: O(r log r) for r rows.
    public func load() throws(StoreError) -> (root: Node, badRows: [BadRow]) {
        let loaded = try queue.reading("read the tree", of: "the server's store", at: location) { db in
            var problems: [BadRow] = []
            let root = try Self.rows.load(at: .root, in: db, problems: &problems)
            return (root, problems)
        }
        rowsMatchTree = loaded.1.isEmpty
        return loaded
    }

    /// The data at `path` as last committed, read by a range of rows (the rows of a location
    /// are contiguous in path order), and the rows of its ancestors that could hold a leaf.
    ///
    /// When an ancestor holds a leaf, `path` does not exist, and the leaf's location is read
    /// instead (the smallest whole location around `path`); when `path` holds no row, the
    /// widest empty location around it is returned (``widestEmptyLocation(around:upTo:_:)``):
    /// ``StoredLocation/path`` and ``StoredLocation/reach`` say which.
    /// A priority path (`a/.priority`) reads its owner.
    /// - Throws: ``StoreError`` when the file cannot be read.
    /// - Complexity: O(d log r + k log k) for a path of depth d and k rows at and below it.
    /// - Parameter skipping: locations below `path` (relative to it) the caller holds already:
    ///   their rows are left out (neither read into the node nor counted in its bytes).
    /// - Parameter interiorAncestors: how many of the path's ancestors, from the root down, the
    ///   caller knows hold no leaf row (a location read below them found none, and none was
    ///   written there since): their rows are not looked up.
    public func loadLocation(_ path: Path, skipping: [Path] = [], interiorAncestors: Int = 0) throws(StoreError) -> StoredLocation {
        let asked = path.isPriority ? path.parent ?? .root : path
        // Outside a transaction (no BEGIN and COMMIT per read, which cost a write a third of
        // its time): this process is the store's only writer, and it commits on this thread.
        return try queue.readingDirectly("read \(asked)", of: "the server's store", at: location) { db in
            let statements = try readStatements ?? ReadStatements(db)
            readStatements = statements
            var location = asked
            var reach = StoredLocation.Reach.asked
            if !asked.isEmpty {
                // The shallowest ancestor that holds a leaf, if any: one lookup of the primary key
                // per ancestor, shallowest first (an `IN` list ordered by length cost SQLite two
                // temporary B-trees, a fifth of a write to a new location).
                let lookup = statements.ancestor
                for depth in min(interiorAncestors, asked.count)..<asked.count {
                    let ancestor = Path(keys: Array(asked.keys.prefix(depth)))
                    let text = LeafRows.rowPath(ancestor)
                    if try lookup.hasRow(.text(text)) {
                        location = ancestor
                        reach = .leafAbove
                        break
                    }
                }
            }
            var problems: [BadRow] = []
            var bytes = 0
            // Skipped locations are relative to the path asked; a leaf above it is read whole.
            var unapplied: [(path: Path, priority: Priority)] = []
            let node = try Self.rows.load(
                at: location, in: db, problems: &problems, bytes: &bytes, skipping: location == asked ? skipping : [],
                unappliedPriorities: &unapplied, range: statements.range)
            if !problems.isEmpty { rowsMatchTree = false }
            // A new location (no row at or below it, none skipped): the widest empty location
            // around it is read instead, so that the next new locations there are in memory.
            if location == asked, !asked.isEmpty, skipping.isEmpty, node.isEmpty, bytes == 0, problems.isEmpty, unapplied.isEmpty {
                location = try widestEmptyLocation(around: asked, upTo: min(interiorAncestors, asked.count), statements)
                if location != asked { reach = .emptyAround }
            }
            return StoredLocation(path: location, reach: reach, node: node, badRows: problems, bytes: bytes, heldPriorities: unapplied)
        }
    }

    /// The shallowest ancestor of `path` (or `path` itself), `depth` keys deep or deeper, with
    /// no row at or below it in the store, where `path` has none and the ancestors from `depth`
    /// down were looked up and hold no row of their own (``loadLocation(_:skipping:interiorAncestors:)``):
    /// one seek per ancestor, nearest first, up to the first with rows below. The ancestors
    /// above `depth`, which the caller knows hold no leaf, are not considered: each location
    /// widened to had its own row looked up.
    ///
    /// Writes to new locations side by side (a new record's fields, a batch of new children in
    /// an empty list, a fresh database) then find the ones after the first in memory, instead
    /// of one store read each. Below a location that already holds rows (a push to a long
    /// list), one seek finds it so, remembered in ``occupied`` for the next ones.
    /// - Complexity: O(d log r) for a path of depth d and r rows; O(d) when the parent is
    ///   known to hold rows (one of the ``occupiedKept`` kept).
    private func widestEmptyLocation(around path: Path, upTo lowest: Int, _ statements: ReadStatements) throws -> Path {
        var widest = path
        for depth in stride(from: path.count - 1, through: lowest, by: -1) {
            let ancestor = Path(keys: Array(path.keys.prefix(depth)))
            if occupied.contains(where: { ancestor.contains($0) }) { break }
            let holdsRows: Bool
            if depth == 0 {
                holdsRows = try statements.any.hasRow()
            } else {
                let text = LeafRows.rowPath(ancestor)
                // Strictly below it (`0` follows `/`); its own row was looked up already.
                holdsRows = try statements.below.hasRow(.text(text + "/"), .text(text + "0"))
            }
            if holdsRows {
                if occupied.count < Self.occupiedKept {
                    occupied.append(ancestor)
                } else {
                    occupied[nextOccupiedSlot] = ancestor
                    nextOccupiedSlot = (nextOccupiedSlot + 1) % Self.occupiedKept
                }
                break
            }
            widest = ancestor
        }
        return widest
    }

    /// Whether rows of data lie below `path` besides those of the locations the caller holds in
    /// memory (`held`: given a row's path, the row path of the held location it lies at or below,
    /// if any) and the priority rows of the locations `ignored`: whether `path`, an ancestor of
    /// memory's locations, still holds data now that those are empty in memory.
    /// - Throws: ``StoreError`` when the file cannot be read.
    /// - Complexity: O((h + i + 1) log r): one seek past each held location and ignored row met,
    ///   one for the first row of data.
    public func hasData(below path: Path, besides held: (String) -> String?, ignoringPriorityOf ignoredPaths: Set<Path>) throws(StoreError) -> Bool {
        let own = LeafRows.rowPath(path)
        let ignored = Set(ignoredPaths.map(LeafRows.rowPath))
        let end = path.isEmpty ? nil : own + "0"
        return try queue.readingDirectly("read below \(path)", of: "the server's store", at: location) { db in
            let next = try BulkStatement(
                end == nil ? "SELECT path FROM leaves WHERE path >= ? ORDER BY path LIMIT 1"
                    : "SELECT path FROM leaves WHERE path >= ? AND path < ? ORDER BY path LIMIT 1", in: db)
            var start = path.isEmpty ? "" : own + "/"
            while true {
                var found: String?
                try next.forEachRow(end.map { [.text(start), .text($0)] } ?? [.text(start)]) { row in
                    found = BulkStatement.text(row, column: 0)
                }
                guard let row = found else { return false }
                if row.hasSuffix("/.priority") || row == ".priority" {
                    let owner = row == ".priority" ? "" : String(row.utf8.dropLast("/.priority".utf8.count))!
                    if ignored.contains(owner) {
                        // The next row after it (no key holds a control character).
                        start = row + "\u{1}"
                        continue
                    }
                }
                if let location = held(row) {
                    // Past the location's own row, or past every row below it (`0` follows `/`).
                    start = row == location ? row + "\u{1}" : location + "0"
                    continue
                }
                return true
            }
        }
    }

    /// Tells the store that its tree is read a location at a time (``loadLocation(_:)``)
    /// rather than whole (``load()``): a commit given the tree as committed trusts it about
    /// which rows exist, until a location read leaves a bad row out.
    public func startLoadingByLocation() {
        rowsMatchTree = true
    }

    /// How many rows (leaves and priorities) the store holds.
    public func rowCount() throws(StoreError) -> Int {
        try queue.reading("count the rows", of: "the server's store", at: location) { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM leaves") ?? 0
        }
    }

    /// Closes the database now. The store cannot be used afterwards.
    public func close() throws(StoreError) {
        tickStatements = nil
        readStatements = nil
        do {
            try queue.close()
        } catch {
            throw StoreError("cannot close the server's store at \(location)", error)
        }
    }

    // MARK: Writing

    static let rows = LeafRows(table: "leaves")

    /// Makes the rows at and below `path` match `node`, the data there now.
    private static func rewrite(
        _ path: Path, to node: Node, previous: ((Path) -> CommittedShape?)?, with writer: LeafRows.Writer
    ) throws {
        if let old = previous?(path), old.priority == nil, old.isEmpty || old.isLeaf {
            // No row below `path`: at most a leaf's row at it, which an upsert replaces.
            if old.isLeaf && node.isLeaf && node.priority == nil {
                // A leaf for a leaf, the usual write: its one row updated in place.
                return try writer.replaceLeaf(at: path, with: node)
            }
            if old.isLeaf && !node.isLeaf { try writer.deleteRow(LeafRows.rowPath(path)) }
        } else {
            try writer.clear(path, for: node)
        }
        try writer.insertRows(of: node, at: path)
    }

    /// Makes the rows of every ancestor of `paths` match `root`, each ancestor once however many
    /// changed paths share it: a leaf keeps its row, an object has none, and a priority row
    /// follows its node.
    ///
    /// An ancestor the tree does not hold whole (`isLoaded` is false: only the locations below
    /// it that were read or written are in memory) holds no leaf (reading a location reads a
    /// leaf above it whole), and keeps its priority row exactly while some row remains below it:
    /// it does when the changed path below it holds data now, with no need to ask. An ancestor it
    /// holds whole is left alone when `previous` (its shape as committed, the rows trusted) shows
    /// the same rows of its own there: no leaf, the same priority. Without these, each write cost
    /// a statement per ancestor, a third of a commit (callgrind).
    private static func fixAncestors(
        of paths: [Path], holding nodes: [Node], from root: Node, previous: ((Path) -> CommittedShape?)?,
        isLoaded: (Path) -> Bool, emptied: (Path) -> Bool, with writer: LeafRows.Writer
    ) throws {
        // Ancestors already fixed (several changed paths share them); one changed path, the
        // usual tick, needs no record (hashing its ancestors' paths cost a write 3,000
        // instructions), and a tick of a few writers' paths keeps a short list, compared in
        // turn, before it hashes them into a set.
        var done = VisitedPaths()
        let sharing = paths.count > 1
        for (path, written) in zip(paths, nodes) {
            let holdsData = !written.isEmpty
            var ancestor = path
            while ancestor.removeLastKey() != nil {
                if sharing { guard done.insert(ancestor) else { break } }
                guard isLoaded(ancestor) else {
                    if !holdsData, try !writer.hasRows(below: ancestor) {
                        try writer.deleteRow(LeafRows.rowPath(ancestor.child(.priority)))
                    } else if emptied(ancestor) {
                        // Left without data by a deletion of the tick and given data again: a new
                        // node, without the old one's priority.
                        try writer.deleteRow(LeafRows.rowPath(ancestor.child(.priority)))
                    }
                    continue
                }
                let node = root.child(at: ancestor)
                if let before = previous?(ancestor), !node.isLeaf, !before.isLeaf, node.priority == before.priority {
                    continue
                }
                if !node.isLeaf { try writer.deleteRow(LeafRows.rowPath(ancestor)) }
                let priorityPath = LeafRows.rowPath(ancestor.child(.priority))
                if node.priority != nil {
                    try writer.upsert(priorityPath, node.child(.priority))
                } else {
                    try writer.deleteRow(priorityPath)
                }
            }
        }
    }

    private static func insert(
        _ answers: [(key: String, failure: EmberCore.DatabaseError?)], capacity: Int, in db: Database
    ) throws {
        let statement = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO answers (key, code, message, path) VALUES (?, ?, ?, ?)")
        for (key, failure) in answers {
            try statement.execute(arguments: [key, failure?.code, failure?.message, failure?.path?.description])
        }
        try db.cachedStatement(sql: "DELETE FROM answers WHERE seq <= (SELECT max(seq) FROM answers) - ?")
            .execute(arguments: [capacity])
    }
}
