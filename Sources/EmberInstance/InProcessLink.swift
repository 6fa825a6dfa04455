import EmberCore
import EmberEngine
import EmberWire

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
    /// Called with each message as the client sees it cross (what `trace` shows): a client's
    /// message when the client sends it, the server's when it reaches the client, just before
    /// it is delivered; `nil`: nothing is called. The client's view, as a client of a server in
    /// another process reports it (``RemoteConnection``) and as the Web SDK's log shows it: its
    /// `set` sends the write before it raises the local events (firebase-js-sdk
    /// `Repo.ts` `repoSetWithPriority`: `server_.put`, then `eventQueueRaiseEventsForChangedPath`).
    public var onCrossing: ((Crossing) -> Void)?

    /// A message crossing the connection.
    public enum Crossing {
        /// A client's message, sent to the server.
        case toServer(ClientMessage)
        /// The server's message, reaching the client.
        case toClient(ServerMessage)
    }

    private unowned let network: InProcessNetwork
    /// The arrival time of the last message sent each way, so that messages never overtake.
    private var lastArrivalAtServer: Int64 = .min
    private var lastArrivalAtClient: Int64 = .min

    init(network: InProcessNetwork, latency: Int64, silentDropTimeout: Int64) {
        self.network = network
        self.latency = latency
        self.silentDropTimeout = silentDropTimeout
        // The handlers hold the link strongly: an end in use keeps its link alive. ``end(_:)``
        // breaks the cycle once both ends know the connection is over.
        // Each message is one closure scheduled on the network (a closure to deliver it, wrapped
        // in another that checks the link, cost every message an allocation more).
        client.sendHandler = { [self] message in
            guard state == .open else { return }
            onCrossing?(.toServer(message))
            network.scheduleMessage(at: arrival(after: &lastArrivalAtServer)) { [self] in
                if state != .dropped { server.receive(.received(message)) }
            }
        }
        server.sendHandler = { [self] message in
            guard state == .open else { return }
            network.scheduleMessage(at: arrival(after: &lastArrivalAtClient)) { [self] in
                guard state != .dropped else { return }
                onCrossing?(.toClient(message))
                client.receive(.received(message))
            }
        }
        client.closeHandler = { [self] in close(from: .client) }
        server.closeHandler = { [self] in close(from: .server) }
    }

    /// Ends the connection cleanly from the client's side.
    public func close() { close(from: .client) }

    /// Loses the connection silently: nothing in flight arrives; the client hears of it now,
    /// the server after its timeout.
    public func drop() {
        guard state == .open else { return }
        state = .dropped
        network.scheduleMessage(at: network.now) { [self] in end(client) }
        // The server's discovery is a timeout, not a message: a timer.
        network.schedule(at: network.now + silentDropTimeout) { [self] in end(server) }
    }

    private enum Side { case client, server }

    private func close(from side: Side) {
        guard state == .open else { return }
        state = .closed
        switch side {
        case .client:
            client.isOpen = false
            let arrival = arrival(after: &lastArrivalAtServer)
            network.scheduleMessage(at: arrival) { [self] in end(server) }
        case .server:
            server.isOpen = false
            let arrival = arrival(after: &lastArrivalAtClient)
            network.scheduleMessage(at: arrival) { [self] in end(client) }
        }
    }

    /// Tells one end that the connection ended; once both know, the handlers (which keep the
    /// link alive while either end may still use it) are released.
    private func end<Outgoing, Incoming>(_ endpoint: InProcessEndpoint<Outgoing, Incoming>) {
        endpoint.receive(.closed)
        endpoint.isOpen = false
        if !client.isOpen && !server.isOpen {
            client.sendHandler = nil
            client.closeHandler = nil
            server.sendHandler = nil
            onCrossing = nil
            server.closeHandler = nil
        }
    }

    private func arrival(after last: inout Int64) -> Int64 {
        let arrival = max(network.now + latency, last)
        last = arrival
        return arrival
    }
}
