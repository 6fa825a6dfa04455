import EmberCore
import EmberRules
import EmberWire

/// The server's side of one client connection: its transport, user, listens and onDisconnect
/// queue.
final class ServerConnection {
    let id: ConnectionID
    let transport: any Transport<ServerMessage, ClientMessage>
    /// Who the connection acts as (not signed in until an `auth` request says otherwise).
    var auth: ConnectionAuth = .none
    /// The last rules check made for the connection's requests (what `explain` explains).
    var lastRuleCheck: RuleCheck?
    var listens: [QuerySpec: ServerListen] = [:]
    /// The operations to run when the connection ends, in the order registered.
    var onDisconnect: [OnDisconnectOperation] = []

    init(id: ConnectionID, transport: any Transport<ServerMessage, ClientMessage>) {
        self.id = id
        self.transport = transport
    }

    func send(_ message: ServerMessage) {
        transport.send(message)
    }
}
