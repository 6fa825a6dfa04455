/// One end of a connection between a client and the server: sends messages of one type,
/// receives messages of the other.
///
/// Nothing is a direct call from client to server: every message is queued in order, like on a
/// network, and delivered on the engine executor. A client holds a ``ClientTransport``; the
/// server holds the other end, a `Transport<ServerMessage, ClientMessage>`. The in-process
/// implementation (with cuts, silent drops, latency and manual stepping) comes with the server.
public protocol Transport<Outgoing, Incoming>: AnyObject {
    /// What this end sends.
    associatedtype Outgoing: Sendable
    /// What this end receives.
    associatedtype Incoming: Sendable

    /// Called with every event from the other end, in order, on the engine executor.
    var onEvent: ((TransportEvent<Incoming>) -> Void)? { get set }

    /// Queues `message` for the other end. Messages arrive in the order sent, or not at all if
    /// the connection ends first.
    func send(_ message: Outgoing)

    /// Ends the connection cleanly: the other end receives ``TransportEvent/closed``.
    func close()
}

/// The client's end of a connection.
public typealias ClientTransport = any Transport<ClientMessage, ServerMessage>
