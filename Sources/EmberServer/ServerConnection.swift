import EmberCore
import EmberRules
import EmberWire

/// What the server's core knows of one client connection: its user, listens and onDisconnect
/// queue. A value in ``ServerCore``'s table; the transport it speaks through is the host's
/// (``Server``).
struct ServerConnection {
    let id: ConnectionID
    /// Who the connection acts as (not signed in until an `auth` request says otherwise).
    var auth: ConnectionAuth = .none
    var listens: [QuerySpec: ServerListen] = [:]
    /// The operations to run when the connection ends, in the order registered.
    var onDisconnect: [OnDisconnectOperation] = []

    init(id: ConnectionID) {
        self.id = id
    }
}
