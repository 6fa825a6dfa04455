import EmberCore
import GRDB

/// A store operation failed: what was attempted, on which store, and SQLite's reason.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable code: `storage_error` for a failed operation, `database_in_use` when another
    /// process holds the database directory, `store_unreadable` for a file that is not a
    /// readable store.
    public let code: String
    /// The whole message, e.g. "cannot open the store at /x/db.sqlite: unable to open database file".
    public let message: String

    /// Creates an error with a message (and a code, `storage_error` unless given).
    public init(_ message: String, code: String = ErrorCode.storageError) {
        self.code = code
        self.message = message
    }

    /// Wraps an underlying (SQLite) error: "`action`: `reason`". A file that is not a database
    /// (or is damaged) gets the code `store_unreadable`.
    init(_ action: String, _ underlying: any Error) {
        self.message = "\(action): \(Self.reason(underlying))"
        if let sqliteError = underlying as? GRDB.DatabaseError,
            [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(sqliteError.resultCode)
        {
            code = ErrorCode.storeUnreadable
        } else {
            code = ErrorCode.storageError
        }
    }

    /// Whether the file is not a readable store (not a database, or damaged).
    public var isUnreadable: Bool { code == ErrorCode.storeUnreadable }

    /// The message.
    public var description: String { message }

    /// SQLite's own words for `error` ("unable to open database file"), without GRDB's
    /// decoration of the code and statement.
    private static func reason(_ error: any Error) -> String {
        if let sqliteError = error as? GRDB.DatabaseError, let message = sqliteError.message {
            return message
        }
        return String(describing: error)
    }
}
