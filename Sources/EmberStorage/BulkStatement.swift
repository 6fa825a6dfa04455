import GRDB
import GRDBSQLite

/// A statement that a commit runs thousands of times with text, integer and blob arguments, bound
/// straight to SQLite.
///
/// The stores write one row per leaf, per queued write and per tracked query: a replay of
/// 100,000 queued writes runs some 300,000 statements in two commits. GRDB's general path
/// (looking the statement up by its SQL, boxing each argument, observing each execution) cost
/// more than SQLite's own work there (measured in BENCHMARKS.md, issue 18), so these few
/// statements are prepared once per transaction through GRDB and then bound and stepped
/// through SQLite's C API. Those that write run only inside a transaction that GRDB opened, and
/// nothing observes the tables they write; those that read run in a transaction or on the
/// store's own connection between its commits (``ServerStore/loadLocation(_:skipping:interiorAncestors:)``).
struct BulkStatement {
    /// One argument.
    enum Argument {
        case text(String)
        case integer(Int64)
        /// Bytes (never empty: SQLite would bind an empty one as NULL).
        case blob([UInt8])
    }

    private let statement: Statement
    private let db: Database

    /// Prepares `sql` (from GRDB's cache of statements) on `db`.
    /// - Throws: GRDB's error when `sql` does not compile.
    init(_ sql: String, in db: Database) throws {
        statement = try db.cachedStatement(sql: sql)
        self.db = db
    }

    /// Runs the statement once with `arguments`, in order.
    /// - Throws: GRDB's ``GRDB/DatabaseError`` with SQLite's code and message (a full disk, an
    ///   I/O error).
    /// - Complexity: O(1) beyond SQLite's own work.
    func run(_ arguments: Argument...) throws {
        let handle = try bind(arguments)
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else { throw failure(code) }
        sqlite3_reset(handle)
    }

    /// Runs the statement with two text arguments, bound in place (`SQLITE_STATIC`) for the
    /// step rather than copied by SQLite (`SQLITE_TRANSIENT`, an allocation and a copy each):
    /// every run binds every parameter again, so a pointer left bound is never read after its
    /// run. A commit's leaf update runs this once per leaf.
    /// - Returns: the rows the statement changed (`sqlite3_changes`).
    /// - Throws: GRDB's ``GRDB/DatabaseError`` with SQLite's code and message.
    @discardableResult
    func run(text first: String, text second: String) throws -> Int {
        let handle = statement.sqliteStatement
        var first = first
        var second = second
        let code = first.withUTF8 { a in
            second.withUTF8 { b in
                // `nil`: SQLite's `SQLITE_STATIC`.
                var code = sqlite3_bind_text(handle, 1, a.baseAddress, Int32(a.count), nil)
                if code == SQLITE_OK { code = sqlite3_bind_text(handle, 2, b.baseAddress, Int32(b.count), nil) }
                if code == SQLITE_OK { code = sqlite3_step(handle) }
                // Reset on success here; a failure is reset by `failure` after its message is read.
                if code == SQLITE_DONE { sqlite3_reset(handle) }
                return code
            }
        }
        guard code == SQLITE_DONE else { throw failure(code) }
        return Int(sqlite3_changes(sqlite3_db_handle(handle)))
    }

    /// Runs the statement (a query) once with `arguments`, calling `body` with SQLite's
    /// statement on each row, whose columns it reads with `sqlite3_column_*` (valid only
    /// during the call): a scan of a million rows that makes no string per row.
    /// - Throws: GRDB's ``GRDB/DatabaseError`` with SQLite's code and message, or what `body`
    ///   throws.
    func forEachRow(_ arguments: [Argument], body: (OpaquePointer?) throws -> Void) throws {
        let handle = try bind(arguments)
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw failure(code) }
            try body(handle)
        }
    }

    /// Runs the statement (a query) once with `arguments`: whether it gives a row.
    /// - Throws: GRDB's ``GRDB/DatabaseError`` with SQLite's code and message.
    /// - Complexity: O(1) beyond SQLite's own work.
    func hasRow(_ arguments: Argument...) throws -> Bool {
        let handle = try bind(arguments)
        defer { sqlite3_reset(handle) }
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        guard code == SQLITE_DONE else { throw failure(code) }
        return false
    }

    /// The text of `column` of the row `statement` is on (in ``forEachRow(_:body:)``), as
    /// GRDB reads a `String` (SQLite's text, converted if the column holds another type; NULL
    /// reads as empty).
    /// - Complexity: O(n) in the text's bytes.
    static func text(_ statement: OpaquePointer?, column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        return String(cString: bytes)
    }

    /// Resets the statement and binds `arguments`, in order.
    private func bind(_ arguments: [Argument]) throws -> OpaquePointer? {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch argument {
            case .integer(let value):
                code = sqlite3_bind_int64(handle, index, value)
            case .blob(let value):
                code = value.withUnsafeBytes { bytes in
                    sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), Self.transient)
                }
            case .text(var value):
                code = value.withUTF8 { bytes in
                    sqlite3_bind_text(handle, index, bytes.baseAddress, Int32(bytes.count), Self.transient)
                }
            }
            guard code == SQLITE_OK else { throw failure(code) }
        }
        return handle
    }

    private func failure(_ code: Int32) -> GRDB.DatabaseError {
        let message = db.lastErrorMessage
        sqlite3_reset(statement.sqliteStatement)
        return GRDB.DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
    }

    /// SQLite's `SQLITE_TRANSIENT`: it copies the bytes before the call returns (the macro does
    /// not cross into Swift).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
