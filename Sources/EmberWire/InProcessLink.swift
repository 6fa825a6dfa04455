/// One connection between a client and the server through an ``InProcessNetwork``.
///
/// Messages travel in order in each direction, each taking `latency` milliseconds. The
/// connection ends in one of two ways:
/// - ``close()`` (or either end's `close()`): messages already sent still arrive, then the other
///   end learns that the connection ended;
/// - ``drop()``: a silent failure, as when a network cable is pulled. Messages in flight are
///   lost; the client learns at once (its socket dies), the server only after
///   `silentDropTimeout` milliseconds of silence.
public final class InProcessLink {
    /// Where the connection is.
    public enum State: Sendable, Hashable {
        case open
        /// Ended cleanly.
        case closed
        /// Lost silently.
        case dropped
    }

    /// The client's end.
    public let client = InProcessEndpoint<ClientMessage, ServerMessage>()
    /// The server's end.
    public let server = InProcessEndpoint<ServerMessage, ClientMessage>()
    /// Where the connection is.
    public private(set) var state: State = .open
    /// How long a message takes, in milliseconds (changing it never reorders messages).
    public var latency: Int64
    /// How long the server takes to notice a silent drop, in milliseconds.
    public var silentDropTimeout: Int64

    private unowned let network: InProcessNetwork
    /// The arrival time of the last message sent each way, so that messages never overtake.
    private var lastArrivalAtServer: Int64 = .min
    private var lastArrivalAtClient: Int64 = .min

    init(network: InProcessNetwork, latency: Int64, silentDropTimeout: Int64) {
        self.network = network
        self.latency = latency
        self.silentDropTimeout = silentDropTimeout
        client.sendHandler = { [unowned self] message in
            carry(after: &lastArrivalAtServer) { [unowned self] in server.receive(.received(message)) }
        }
        server.sendHandler = { [unowned self] message in
            carry(after: &lastArrivalAtClient) { [unowned self] in client.receive(.received(message)) }
        }
        client.closeHandler = { [unowned self] in close(from: .client) }
        server.closeHandler = { [unowned self] in close(from: .server) }
    }

    /// Ends the connection cleanly from the client's side.
    public func close() { close(from: .client) }

    /// Loses the connection silently: nothing in flight arrives; the client hears of it now,
    /// the server after its timeout.
    public func drop() {
        guard state == .open else { return }
        state = .dropped
        network.scheduleMessage(at: network.now) { [unowned self] in client.receive(.closed) }
        // The server's discovery is a timeout, not a message: a timer.
        network.schedule(at: network.now + silentDropTimeout) { [unowned self] in server.receive(.closed) }
    }

    private enum Side { case client, server }

    private func close(from side: Side) {
        guard state == .open else { return }
        state = .closed
        switch side {
        case .client:
            client.isOpen = false
            let arrival = arrival(after: &lastArrivalAtServer)
            network.scheduleMessage(at: arrival) { [unowned self] in server.receive(.closed) }
        case .server:
            server.isOpen = false
            let arrival = arrival(after: &lastArrivalAtClient)
            network.scheduleMessage(at: arrival) { [unowned self] in client.receive(.closed) }
        }
    }

    /// Schedules one message's arrival, unless the connection has ended; a message in flight
    /// when the connection drops is lost.
    private func carry(after last: inout Int64, _ deliver: @escaping () -> Void) {
        guard state == .open else { return }
        network.scheduleMessage(at: arrival(after: &last)) { [unowned self] in
            if state != .dropped { deliver() }
        }
    }

    private func arrival(after last: inout Int64) -> Int64 {
        let arrival = max(network.now + latency, last)
        last = arrival
        return arrival
    }
}
