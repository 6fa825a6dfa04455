import GRDB

/// A ``Store`` operation failed: what was attempted, on which store, and SQLite's reason.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The whole message, e.g. "cannot open the store at /x/db.sqlite: unable to open database file".
    public let message: String

    /// Creates an error with a message.
    public init(_ message: String) {
        self.message = message
    }

    /// Wraps an underlying (SQLite) error: "`action`: `reason`".
    init(_ action: String, _ underlying: any Error) {
        self.message = "\(action): \(Self.reason(underlying))"
    }

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
