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

    /// Nothing to end: the connection lives on the engine thread only.
    func close() {}

    /// Hands `message` to the server.
    func deliver(_ message: ClientMessage) { onEvent?(.received(message)) }
}
