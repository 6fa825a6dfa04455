import EmberCore
import EmberWire

/// A server connection made on the engine thread for a REST request or an event stream: what
/// the server sends goes to ``onMessage``; what it is given reaches the server at once.
/// Confined to the engine thread.
final class LocalConnection: Transport {
    typealias Outgoing = ServerMessage
    typealias Incoming = ClientMessage

    var onEvent: ((TransportEvent<ClientMessage>) -> Void)?
    /// Called with every message the server sends.
    var onMessage: (ServerMessage) -> Void = { _ in }
    func send(_ message: ServerMessage) { onMessage(message) }

    /// The server closed the connection: its handlers go, and what they hold with them (a
    /// handler that delivers on the connection holds the connection, and so the request's
    /// value: every REST request was kept, a 1 MB PUT kept 1 MB).
    func close() {
        onMessage = { _ in }
        onEvent = nil
    }

    /// Hands `message` to the server.
    func deliver(_ message: ClientMessage) { onEvent?(.received(message)) }
}
