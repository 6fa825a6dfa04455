import EmberCore

/// A rules file that cannot be loaded: what is wrong, where in the file (`line:column`), and the
/// rule's path in the document (`rules/users/$uid/.write`). The running rules stay as they were.
public struct RulesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `invalid_rules`.
    public let code = ErrorCode.invalidRules
    public let reason: String
    public let line: Int
    public let column: Int
    /// The path of the rule in the document, keys joined by `/` (empty for the document).
    public let place: String

    public init(_ reason: String, line: Int, column: Int, place: String) {
        self.reason = reason
        self.line = line
        self.column = column
        self.place = place
    }

    /// `line:column: reason (at rules/users/$uid/.write)`.
    public var message: String { "\(line):\(column): \(reason)" + (place.isEmpty ? "" : " (at \(place))") }

    public var description: String { message }

    /// The error as the database reports it.
    public var databaseError: DatabaseError { .other(code: code, message: message) }
}
