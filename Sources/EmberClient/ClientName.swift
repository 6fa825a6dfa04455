import EmberCore

/// The name of a client of the embedded instance (`client alice` in the shell).
///
/// Each client of a database directory keeps its cache and write queue under that directory by
/// name, so a name is also a directory name: 1 to 64 ASCII letters, digits, `_` and `-`, not
/// starting with `-`. The shell starts with ``main``.
public struct ClientName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The name.
    public let rawValue: String

    /// The client the shell starts with.
    public static let main = ClientName(unchecked: "main")

    /// Creates a name from user input.
    /// - Throws: ``DatabaseError`` with code `invalid_client_name`, saying which rule it breaks.
    public init(validating name: String) throws(DatabaseError) {
        if let problem = Self.problem(with: name) {
            throw DatabaseError.other(code: ErrorCode.invalidClientName, message: "invalid client name \"\(name)\": \(problem)")
        }
        rawValue = name
    }

    private init(unchecked name: String) {
        rawValue = name
    }

    /// What is wrong with `name` as a client name, or `nil` when it is valid.
    public static func problem(with name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        if name.utf8.count > 64 { return "it is longer than 64 characters" }
        if name.hasPrefix("-") { return "it starts with '-'" }
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
        }
        return allowed ? nil : "use only letters, digits, '_' and '-'"
    }

    /// Alphabetical order (the order of `clients`).
    public static func < (lhs: ClientName, rhs: ClientName) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The name.
    public var description: String { rawValue }
}
