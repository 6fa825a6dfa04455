import EmberCore
import EmberServer

/// What the embedded server holds for one client's connection: who it acts as, its listens and
/// its onDisconnect operations (the server's half of `inspect`).
public struct ServerConnectionInspection: Sendable {
    /// The connection.
    public let connection: ConnectionID
    /// Who it acts as.
    public let auth: ConnectionAuth
    /// The queries it listens to, by location.
    public let listens: [QuerySpec]
    /// The writes the server makes when it ends, in the order registered.
    public let onDisconnect: [OnDisconnectOperation]
}
