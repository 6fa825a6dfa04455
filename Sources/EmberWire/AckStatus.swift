import EmberCore

/// How the server answered a request.
public enum AckStatus: Sendable, Hashable {
    /// Done (for a write: applied, and durable as the server's durability setting promises).
    case ok
    /// Refused, with the wire code and message (`permission_denied`, `datastale`, ...).
    case failed(DatabaseError)
}
