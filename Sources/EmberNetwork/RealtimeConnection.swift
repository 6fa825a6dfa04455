import EmberCore
import EmberNetworkShared
import EmberServer
import EmberWire

/// The server's end of one WebSocket speaking the realtime protocol v5: messages from the
/// server are only encoded (``RealtimeOutbox``; an answer carries its own payload,
/// ``AckPayload``) and queued on the connection's ``OutboundFrames``,
/// which the outbox writes to the channel at the end of the engine's tick; messages decoded on
/// the channel's event loop (``RealtimeFrameHandler``) are handed to the server.
///
/// Confined to its database's engine thread: the socket's tasks hold it only to submit work
/// that uses it. The server knows it as a ``Transport``.
final class RealtimeConnection: Transport, @unchecked Sendable {
    typealias Outgoing = ServerMessage
    typealias Incoming = ClientMessage

    var onEvent: ((TransportEvent<ClientMessage>) -> Void)?
    private let outbound: OutboundFrames
    /// Encodes what the server sends (an update once for many listeners).
    private let outbox: RealtimeOutbox
    /// The host the client reached (the hello's `h`) and the session's id (`s`).
    private let host: String
    private let session: String
    /// The administrator's credential on this address: a `gauth` with it reaches the server as
    /// the emulator's `owner` (what the server takes); any other is refused here.
    private let admin: AdminCredential
    /// Set on a connection to a namespace that does not exist (the registry's empty database):
    /// creates it. The administrator's `gauth` calls it, then closes the connection unanswered
    /// and ignores what follows, so that the client connects again, to the namespace, and sends
    /// its `gauth` and unanswered writes there (a write on this connection would be refused).
    private let createNamespace: (@Sendable () -> Bool)?
    /// The connection closes for the client to connect to the namespace just created.
    private var reconnecting = false
    /// Whether the rules refuse this connection every write at and below a path, whatever it
    /// holds (``Server/refusesEveryWrite(atOrBelow:as:)`` as the connection's user): set when
    /// the server accepts the connection.
    var refusesEveryWrite: (Path) -> Bool = { _ in false }
    /// Called with each message the server takes from the client and each it sends, as the
    /// protocol's text (`ember serve --trace`); `nil`: nothing is encoded for it.
    var trace: ((ProtocolDirection, String) -> Void)?

    init(
        outbound: OutboundFrames, outbox: RealtimeOutbox, host: String, session: String, admin: AdminCredential = .owner,
        createNamespace: (@Sendable () -> Bool)? = nil
    ) {
        self.outbound = outbound
        self.outbox = outbox
        self.host = host
        self.session = session
        self.admin = admin
        self.createNamespace = createNamespace
    }

    // MARK: Transport (the server's side)

    func send(_ message: ServerMessage) {
        trace?(.toClient, RealtimeCodec.encode(message))
        switch message {
        case .handshake(let serverTime):
            push(RealtimeCodec.hello(serverTime: serverTime, host: host, session: session))
        case .ack, .getResult:
            outbound.push(outbox.frames(for: message), answering: true)
        default:
            outbound.push(outbox.frames(for: message))
        }
    }

    func close() {
        outbound.close()
    }

    private func push(_ text: String) {
        outbound.push(RealtimeOutbox.frames(text))
    }

    // MARK: From the socket

    /// Handles one decoded message from the client, in the order received.
    func receive(_ frame: ClientFrame) {
        if reconnecting { return }
        switch frame {
        case .request(var message):
            if case .adminAuth(let requestID, let credential, let override) = message {
                guard admin.accepts(credential) else {
                    // As the server refuses a credential it does not take.
                    push(RealtimeCodec.encode(.ack(requestID: requestID, status: .failed(Server.refusedAdminCredential))))
                    return
                }
                if let createNamespace, createNamespace() {
                    reconnecting = true
                    outbound.close()
                    return
                }
                message = .adminAuth(requestID: requestID, credential: AdminCredential.ownerWord, override: override)
            }
            trace?(.toServer, RealtimeClientSession.text(of: message, speaksEmber: true))
            onEvent?(.received(message))
        case .acknowledgeOnly(let requestID):
            push(RealtimeCodec.encode(.ack(requestID: requestID, status: .ok())))
        case .ping:
            push(RealtimeCodec.pong)
        case .ignored:
            break
        case .refused(let requestID?, let error):
            push(RealtimeCodec.encode(.ack(requestID: requestID, status: .failed(error))))
        case .refused(nil, let error):
            push(RealtimeCodec.error(error.message))
            outbound.close()
        }
    }

    /// The client sent a message larger than `limit` bytes: it is told so, and the connection
    /// closes.
    func messageTooLarge(limit: Int) {
        push(RealtimeCodec.error("The specified payload is too large (more than \(limit) bytes)."))
        outbound.close()
    }

    /// The socket ended: the server runs the connection's onDisconnect operations.
    func socketEnded() {
        outbound.finish()
        onEvent?(.closed)
    }
}
