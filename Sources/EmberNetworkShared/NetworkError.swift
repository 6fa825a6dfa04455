import EmberCore

/// A failure at the network edge, with the HTTP status it answers with and Firebase's words
/// (`{"error": "…"}`).
public struct NetworkError: Error, Sendable, Hashable {
    /// The kinds of failure, each with its status.
    public enum Kind: Int, Sendable, Hashable {
        case badRequest = 400
        case unauthorized = 401
        case forbidden = 403
        case notFound = 404
        case methodNotAllowed = 405
        case preconditionFailed = 412
        case payloadTooLarge = 413
        case unavailable = 503
    }

    public let kind: Kind
    /// What the `error` member says.
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The HTTP status.
    public var status: Int { kind.rawValue }

    /// Firebase's answer to a database error: `permission_denied` is 401 "Permission denied",
    /// the rest are 400 with Ember's message (REST error catalogue,
    /// `../shared/reference/firebase-network.md` §1.10).
    public init(_ error: DatabaseError) {
        switch error.code {
        case ErrorCode.permissionDenied: self.init(.unauthorized, "Permission denied")
        case ErrorCode.invalidToken, ErrorCode.expiredToken: self.init(.unauthorized, "Could not parse auth token.")
        // Nothing was applied, so a retry (the Admin SDKs retry 503) cannot apply a write twice.
        case ErrorCode.storageError: self.init(.unavailable, error.message)
        case ErrorCode.readOnly: self.init(.forbidden, error.message)
        default: self.init(.badRequest, error.message)
        }
    }

    /// The body: `{"error": "…"}`.
    public var body: String {
        var writer = JSONWriter()
        writer.append(raw: #"{"error":"#)
        writer.write(string: message)
        writer.append(raw: "}")
        return writer.output
    }
}
