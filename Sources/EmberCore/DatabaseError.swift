/// The one public error of Ember: what went wrong, where, and the wire code that names it.
///
/// A `DatabaseError` wraps a private enum so that new cases can be added without breaking
/// clients. Every error carries a stable ``code`` (the Firebase wire code, such as
/// `permission_denied` or `datastale`, or an Ember code such as `invalid_key`), a human
/// message, and the ``path`` it concerns when there is one. The shell prints it as
/// `error: <message>` (with `--json`, `{"error": {"code", "message", "path"}}`); Lua receives it
/// as an error object with `err.code`, `err.message` and `err.path`.
///
/// ```swift
/// do { _ = try ChildKey(validating: "a.b") }
/// catch let error as DatabaseError { print(error.code) }   // "invalid_key"
/// ```
public struct DatabaseError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case invalidKey(key: String, reason: String)
        case invalidPath(path: String, reason: String)
        case pathTooDeep(path: String, depth: Int)
        case invalidValue(reason: String)
        case invalidPriority(reason: String)
        case invalidQuery(reason: String)
        case malformedJSON(reason: String, line: Int, column: Int)
        case permissionDenied
        case dataStale
        case disconnected
        case writeCanceled
        case maxRetries
        case overriddenBySet
        case other(code: String, message: String)
        /// An error read back whole from where it was stored: its message already says where
        /// (``DatabaseError/restored(code:message:at:)``).
        case stored(code: String, message: String)
    }

    let kind: Kind

    /// The location the error concerns, when there is one (the path of the offending value for
    /// a validation error, the written path for a rejected write).
    public let path: Path?

    init(_ kind: Kind, path: Path? = nil) {
        self.kind = kind
        self.path = path
    }

    /// The stable, machine-readable code: one of ``ErrorCode`` (a Firebase wire code such as
    /// `permission_denied`, or an Ember code such as `invalid_key`; docs/ERRORS.md lists them).
    public var code: String {
        switch kind {
        case .invalidKey: ErrorCode.invalidKey
        case .invalidPath: ErrorCode.invalidPath
        case .pathTooDeep: ErrorCode.pathTooDeep
        case .invalidValue: ErrorCode.invalidValue
        case .invalidPriority: ErrorCode.invalidPriority
        case .invalidQuery: ErrorCode.invalidQuery
        case .malformedJSON: ErrorCode.malformedJSON
        case .permissionDenied: ErrorCode.permissionDenied
        case .dataStale: ErrorCode.dataStale
        case .disconnected: ErrorCode.disconnected
        case .writeCanceled: ErrorCode.writeCanceled
        case .maxRetries: ErrorCode.maxRetries
        case .overriddenBySet: ErrorCode.overriddenBySet
        case .other(let code, _), .stored(let code, _): code
        }
    }

    /// The key an `invalid_key` error refuses (`nil` for any other error).
    public var invalidKey: String? {
        if case .invalidKey(let key, _) = kind { return key }
        return nil
    }

    /// A sentence for people, naming what is wrong and where.
    public var message: String {
        let location = path.map { " at \($0)" } ?? ""
        switch kind {
        case .invalidKey(let key, let reason):
            return "invalid key \(Self.quote(key))\(location): \(reason)"
        case .invalidPath(let path, let reason):
            return "invalid path \(Self.quote(path)): \(reason)"
        case .pathTooDeep(let path, let depth):
            return "path \(Self.quote(path)) is \(depth) levels deep; "
                + "the limit is \(Limits.maxDepth) levels"
        case .invalidValue(let reason):
            return "invalid value\(location): \(reason)"
        case .invalidPriority(let reason):
            return "invalid priority\(location): \(reason)"
        case .invalidQuery(let reason):
            return "invalid query\(location): \(reason)"
        case .malformedJSON(let reason, let line, let column):
            return "malformed JSON at line \(line), column \(column): \(reason)"
        case .permissionDenied:
            return "permission denied\(location)"
        case .dataStale:
            return "the data changed on the server before the write was applied\(location)"
        case .disconnected:
            return "the operation was cancelled because the client disconnected\(location)"
        case .writeCanceled:
            return "the write was cancelled by the user\(location)"
        case .maxRetries:
            return "the transaction was retried too many times\(location)"
        case .overriddenBySet:
            return "the transaction was overridden by a later set\(location)"
        case .other(_, let message):
            return message + location
        case .stored(_, let message):
            return message
        }
    }

    /// For `malformed_json`: the 1-based line and column of the offending character.
    public var position: (line: Int, column: Int)? {
        if case .malformedJSON(_, let line, let column) = kind { return (line, column) }
        return nil
    }

    public var description: String { message }

    /// The same error, located at `path` (used when a validator learns where it was called).
    public func at(_ path: Path) -> DatabaseError { DatabaseError(kind, path: path) }

    static func quote(_ text: String) -> String {
        // Long keys and paths keep their start and their end, which say the most.
        let shown = text.count > 100 ? String(text.prefix(40)) + "..." + String(text.suffix(57)) : text
        var out = "\""
        for scalar in shown.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

extension DatabaseError {
    /// The server rejected the operation under its security rules.
    public static func permissionDenied(at path: Path? = nil) -> DatabaseError { .init(.permissionDenied, path: path) }
    /// A hash-guarded write found that the data had changed.
    public static func dataStale(at path: Path? = nil) -> DatabaseError { .init(.dataStale, path: path) }
    /// The operation could not complete because the connection went away.
    public static func disconnected(at path: Path? = nil) -> DatabaseError { .init(.disconnected, path: path) }
    /// The user cancelled the write.
    public static func writeCanceled(at path: Path? = nil) -> DatabaseError { .init(.writeCanceled, path: path) }
    /// A transaction ran out of retries.
    public static func maxRetries(at path: Path? = nil) -> DatabaseError { .init(.maxRetries, path: path) }
    /// A `set` replaced the location of a running transaction.
    public static func overriddenBySet(at path: Path? = nil) -> DatabaseError { .init(.overriddenBySet, path: path) }
    /// A query was built with parameters that do not fit together.
    public static func invalidQuery(_ reason: String, at path: Path? = nil) -> DatabaseError {
        .init(.invalidQuery(reason: reason), path: path)
    }
    /// A value cannot be stored.
    public static func invalidValue(_ reason: String, at path: Path? = nil) -> DatabaseError {
        .init(.invalidValue(reason: reason), path: path)
    }
    /// A priority cannot be stored.
    public static func invalidPriority(_ reason: String, at path: Path? = nil) -> DatabaseError {
        .init(.invalidPriority(reason: reason), path: path)
    }
    /// Any other error, with its wire code and message.
    public static func other(code: String, message: String, at path: Path? = nil) -> DatabaseError {
        .init(.other(code: code, message: message), path: path)
    }
}
