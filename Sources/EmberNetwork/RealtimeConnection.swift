import EmberCore
import EmberServer
import EmberWire

/// The server's end of one WebSocket speaking the realtime protocol v5: messages from the
/// server are encoded (``RealtimeCodec``) and queued for the socket's writer; frames decoded by
/// the socket's reader are handed to the server.
///
/// Confined to its database's engine thread: the socket's tasks hold it only to submit work
/// that uses it. The server knows it as a ``Transport``.
final class RealtimeConnection: Transport, @unchecked Sendable {
    typealias Outgoing = ServerMessage
    typealias Incoming = ClientMessage

    var onEvent: ((TransportEvent<ClientMessage>) -> Void)?
    private let outbound: OutboundFrames
    /// The host the client reached (the hello's `h`) and the session's id (`s`).
    private let host: String
    private let session: String
    /// What the `ok` of a pending request carries when it is not `""`: listens get `{}`, auth
    /// requests the user and expiry.
    private var okPayloads: [Int: RealtimeCodec.OKPayload] = [:]

    init(outbound: OutboundFrames, host: String, session: String) {
        self.outbound = outbound
        self.host = host
        self.session = session
    }

    // MARK: Transport (the server's side)

    func send(_ message: ServerMessage) {
        switch message {
        case .handshake(let serverTime):
            outbound.push(RealtimeCodec.hello(serverTime: serverTime, host: host, session: session))
        case .ack(let requestID, _):
            outbound.push(RealtimeCodec.encode(message, okPayload: okPayloads.removeValue(forKey: requestID) ?? .emptyString))
        default:
            outbound.push(RealtimeCodec.encode(message))
        }
    }

    func close() {
        outbound.finish()
    }

    // MARK: From the socket

    /// Handles one decoded message from the client, in the order received.
    func receive(_ frame: ClientFrame) {
        switch frame {
        case .request(let message):
            switch message {
            case .listen(let requestID, _, _, _):
                okPayloads[requestID] = .emptyObject
            case .auth(let requestID, let text):
                if let token = try? AuthToken(parsing: text) {
                    okPayloads[requestID] = .auth(token.auth, expires: token.expiresAt / 1000)
                }
            case .adminAuth(let requestID, _, let override):
                switch override {
                case .variable(let auth): okPayloads[requestID] = .auth(auth, expires: nil)
                case .none, .unauthenticated: okPayloads[requestID] = .auth(nil, expires: nil)
                }
            default:
                break
            }
            onEvent?(.received(message))
        case .acknowledgeOnly(let requestID):
            outbound.push(RealtimeCodec.encode(.ack(requestID: requestID, status: .ok)))
        case .ping:
            outbound.push(RealtimeCodec.pong)
        case .ignored:
            break
        case .refused(let requestID?, let error):
            outbound.push(RealtimeCodec.encode(.ack(requestID: requestID, status: .failed(error))))
        case .refused(nil, let error):
            outbound.push(RealtimeCodec.error(error.message))
            outbound.finish()
        }
    }

    /// The socket ended: the server runs the connection's onDisconnect operations.
    func socketEnded() {
        outbound.finish()
        onEvent?(.closed)
    }
}
