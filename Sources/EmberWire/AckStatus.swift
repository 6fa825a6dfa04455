import EmberCore

/// How the server answered a request.
///
/// An `ok` carries what the protocol's answer carries with it (``AckPayload``), decided by the
/// server that answered, so that a transport only encodes it.
public enum AckStatus: Sendable, Hashable {
    /// Done (for a write: applied, and durable as the server's durability setting promises),
    /// with what the answer carries.
    case ok(AckPayload = .none)
    /// Refused, with the wire code and message (`permission_denied`, `datastale`, ...). Boxed:
    /// an error inline made every answer, each `ok` too, as large as the error.
    indirect case failed(DatabaseError)

    /// Whether the request was done.
    public var isOK: Bool {
        if case .ok = self { return true }
        return false
    }
}
