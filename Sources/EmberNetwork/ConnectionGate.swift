import EmberNetworkShared
import NIOCore
import NIOHTTP1

/// The front of every HTTP connection of `ember serve`, before SwiftNIO's HTTP decoder: what a
/// connection must do before the server spends anything on it.
///
/// - It counts the connection against ``NetworkLimits/maxConnections`` from its first moment
///   (past the limit it is answered 503 and closed) until it closes, whatever it becomes.
/// - A request's head must arrive whole within ``NetworkLimits/requestHeadTimeout`` of the
///   connection opening, or of its first byte for the next request on a kept-alive connection;
///   the deadline is not moved by each byte (a client trickling a header is cut off as one that
///   sends nothing). Past it: 408 (nothing when not a byte came) and the close.
/// - It reads the head's bytes as they pass: a request line longer than
///   ``maxRequestLine`` is answered 414, a head larger than ``maxHead`` 431, a line ended by a
///   bare LF (or a CR without its LF) or an obs-folded header (a line starting with a space or a
///   tab) 400 (RFC 9112 §2.2, §5.2: a server may refuse them, and a proxy in front might read
///   them otherwise), each followed by the close.
/// - What the decoder itself refuses (``RequestBoundaries`` reports it) is answered 400 and
///   closed, not left open and silent.
///
/// ``RequestBoundaries``, after the decoder, tells it where each request ends, so that the
/// next head is watched too; a WebSocket upgrade removes that one, and the gate then only counts.
final class ConnectionGate: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// The longest request line taken (bytes, without its CRLF).
    static let maxRequestLine = 8 * 1024
    /// The largest request head taken (bytes, request line and headers).
    static let maxHead = 64 * 1024

    private enum Phase {
        /// Waiting for a head; `started` once it has a byte (or the connection has just opened).
        case awaitingHead(started: Bool)
        /// Reading a head's bytes.
        case head
        /// The head has passed; the request is the server's until ``RequestBoundaries`` sees its
        /// end. `answered` once a byte of the answer went out.
        case request(answered: Bool)
        /// Refused: nothing more is read.
        case closing
    }

    private let connections: ConnectionCounter
    private let maxConnections: Int
    private let headTimeout: TimeAmount
    private var admitted = false
    private var counted = false
    private var phase = Phase.awaitingHead(started: false)
    private var deadline: Scheduled<Void>?
    /// Bytes of the current head so far, and of its current line.
    private var headBytes = 0
    private var lineBytes = 0
    /// Lines of the current head ended so far (0 while on the request line).
    private var lines = 0
    private var previous: UInt8 = 0

    init(connections: ConnectionCounter, maxConnections: Int, headTimeout: TimeAmount) {
        self.connections = connections
        self.maxConnections = maxConnections
        self.headTimeout = headTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        if counted {
            counted = false
            connections.leave()
        }
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        if counted {
            counted = false
            connections.leave()
        }
    }

    private func admit(context: ChannelHandlerContext) {
        guard !admitted else { return }
        admitted = true
        guard connections.admit(limit: maxConnections) else {
            refuse(context: context, status: .serviceUnavailable, message: "this server holds at most \(maxConnections) connections, or is stopping")
            return
        }
        counted = true
        headBytes = 0
        phase = .awaitingHead(started: true)
        startDeadline(context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        switch phase {
        case .closing:
            return
        case .request:
            context.fireChannelRead(data)
            return
        case .awaitingHead(let started):
            if !started { startDeadline(context: context) }
            phase = .head
            headBytes = 0
            lineBytes = 0
            lines = 0
            previous = 0
        case .head:
            break
        }
        if let failure = scanHead(buffer) {
            refuse(context: context, status: failure.status, message: failure.message)
            return
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .request = phase { phase = .request(answered: true) }
        context.write(data, promise: promise)
    }

    /// The request whose head passed has ended (its last part decoded): the next bytes begin
    /// another head.
    func requestEnded() {
        guard case .request = phase else { return }
        phase = .awaitingHead(started: false)
    }

    /// The decoder refused what it read: 400 (431 when it was a header too large for it), unless
    /// the server has begun its answer; then the close.
    func malformed(context: ChannelHandlerContext, error: HTTPParserError) {
        switch phase {
        case .closing:
            // Refused already (the decoder may report more than one error).
            return
        case .request(answered: true):
            phase = .closing
            context.close(promise: nil)
            return
        default:
            break
        }
        let status: HTTPResponseStatus = error == .headerOverflow ? .requestHeaderFieldsTooLarge : .badRequest
        refuse(context: context, status: status, message: "Malformed HTTP request (\(error))")
    }

    /// Scans the head's bytes in `buffer` up to the head's end (after which the request is the
    /// decoder's): the failure, if any.
    private func scanHead(_ buffer: ByteBuffer) -> (status: HTTPResponseStatus, message: String)? {
        let cr: UInt8 = 13, lf: UInt8 = 10
        return buffer.withUnsafeReadableBytes { bytes -> (status: HTTPResponseStatus, message: String)? in
            for byte in bytes {
                headBytes += 1
                if previous == cr, byte != lf { return (.badRequest, "A CR that is not followed by LF in the request head") }
                if byte == lf {
                    guard previous == cr else { return (.badRequest, "A line of the request head ends with a bare LF, not CRLF") }
                    if lineBytes == 0 {
                        // An empty line: before the request line it is skipped (RFC 9112 §2.2);
                        // after a header it ends the head.
                        if lines > 0 {
                            phase = .request(answered: false)
                            previous = 0
                            deadline?.cancel()
                            deadline = nil
                            return nil
                        }
                    } else {
                        lines += 1
                    }
                    lineBytes = 0
                } else if byte != cr {
                    if lineBytes == 0, lines > 0, byte == 32 || byte == 9 {
                        return (.badRequest, "Obsolete line folding (a header line starting with a space or a tab)")
                    }
                    lineBytes += 1
                    if lines == 0, lineBytes > Self.maxRequestLine {
                        return (.uriTooLong, "The request line is longer than \(Self.maxRequestLine) bytes")
                    }
                }
                if headBytes > Self.maxHead {
                    return (.requestHeaderFieldsTooLarge, "The request head is larger than \(Self.maxHead) bytes")
                }
                previous = byte
            }
            return nil
        }
    }

    private func startDeadline(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: headTimeout) {
            self.deadline = nil
            switch self.phase {
            case .awaitingHead(started: true) where self.headBytes == 0:
                // Nothing came: nothing to answer.
                self.phase = .closing
                context.close(promise: nil)
            case .awaitingHead(started: true), .head:
                self.refuse(context: context, status: .requestTimeout, message: "The request head did not arrive in time")
            default:
                break
            }
        }
    }

    /// Answers `status` with Firebase's error body and closes the connection: its output at
    /// once, then (what the client still sends being read and dropped, so that its unread bytes
    /// do not turn the close into a reset that loses the answer) the rest when the client closes
    /// or a second later.
    private func refuse(context: ChannelHandlerContext, status: HTTPResponseStatus, message: String) {
        phase = .closing
        deadline?.cancel()
        deadline = nil
        let body = NetworkError(.badRequest, message).body
        let text = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        let buffer = context.channel.allocator.buffer(string: text)
        let loop = context.eventLoop.assumeIsolated()
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(buffer))).assumeIsolated().whenComplete { _ in
            context.close(mode: .output, promise: nil)
            loop.scheduleTask(in: .seconds(1)) { context.close(promise: nil) }
        }
    }
}
