import EmberCore
import EmberWire
import NIOCore
import NIOWebSocket

/// Reads the realtime protocol on the channel's event loop: it reassembles the client's
/// WebSocket messages (fragmented frames) and the protocol's own multi-frame messages
/// (``FrameAssembler``), decodes them, and hands each to ``Events/message`` (which submits it to
/// the database's engine), without a task between the event loop and the engine.
///
/// It sits in the pipeline after the WebSocket frame decoder, ahead of hummingbird-websocket's
/// handler: data frames stop here; control frames (ping, pong, close) go on to
/// hummingbird-websocket, which answers pings and runs the closing handshake. A frame that
/// reached hummingbird-websocket before this handler was added (sent before the server's
/// hello) comes back through ``take(message:)``.
///
/// Bad input closes the connection: a message larger than the limit is answered with the
/// protocol's error first (``Events/tooLarge``); interleaved or stray fragments, and text that is
/// not UTF-8, close it at once (as hummingbird-websocket would: RFC 6455 §5.4, §8.1).
final class RealtimeFrameHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    /// Where the handler's results go (called on the event loop).
    struct Events {
        /// A whole, decoded message, in the order the client sent them.
        let message: (ClientFrame) -> Void
        /// A message passed the size limit; nothing more is read.
        let tooLarge: () -> Void
        /// Asks, after every message handed on before, at which of `paths` (if any) the rules
        /// refuse the connection every write at and below, and calls back with the first such
        /// path (on any thread).
        var refusesWrites: (_ paths: [Path], _ answer: @escaping @Sendable (Path?) -> Void) -> Void = { _, answer in answer(nil) }
        /// The channel's writability changed: its unsent bytes went above its high mark, or
        /// back below its low mark.
        var writabilityChanged: () -> Void = {}
    }

    /// The WebSocket message being reassembled from fragments.
    private enum Fragments {
        case none
        case text(ByteBuffer)
        /// A binary message (the protocol has none: skipped), of this many bytes so far.
        case binary(Int)
    }

    private var fragments = Fragments.none
    private var assembler: FrameAssembler
    private let maxMessageSize: Int
    private let activity: Activity
    private let events: Events
    /// Set once the connection is being closed for bad input: nothing more is read.
    private var refusing = false
    /// Checks the signatures of the tokens of `auth` requests (`ember serve --project`).
    private let verifier: TokenVerifier?
    /// A message held while the handler waits, decoded or not yet.
    private enum Held {
        case frame(ClientFrame)
        case text(String)
    }

    /// While the handler waits (for the verifier's keys for an `auth` request's token, or for
    /// the engine's word on a large write): every message after the one waited on, held so
    /// that they reach the server in order (and as the token's user).
    private var held: [Held]?
    /// The `auth` request waiting for the verifier's keys.
    private var waitingAuth: ClientFrame?
    /// From this size a write message is read without its data first, and read whole only
    /// when the rules do not refuse it whatever it holds (``Events/refusesWrites``): a refused
    /// merge of a million paths (14 MB) costs a scan, not hundreds of MB of values.
    static let checkedWriteSize = 256 << 10
    /// The bytes of the messages held, and how many may be (``NetworkLimits/maxUnsentBytes``):
    /// past it the connection is closed (a client could send 120 MB behind a slow fetch).
    private var heldBytes = 0
    private let maxHeldBytes: Int
    /// Where a connection that held too much is closed.
    private var context: ChannelHandlerContext?

    /// The channel's event loop, where the handler lives.
    private let loop: any EventLoop

    init(maxMessageSize: Int, maxHeldBytes: Int = .max, activity: Activity, verifier: TokenVerifier?, loop: any EventLoop, events: Events) {
        self.maxMessageSize = maxMessageSize
        self.maxHeldBytes = maxHeldBytes
        self.loop = loop
        assembler = FrameAssembler(maxMessageSize: maxMessageSize)
        self.activity = activity
        self.verifier = verifier
        self.events = events
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        events.writabilityChanged()
        context.fireChannelWritabilityChanged()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        activity.heard()
        // RFC 6455 §5.1, §5.2: a client's frames are masked, and no extension was agreed that
        // would give the RSV bits a meaning: fail the connection (close code 1002).
        guard frame.maskKey != nil, !frame.rsv1, !frame.rsv2, !frame.rsv3 else {
            failProtocol(context: context, reason: frame.maskKey == nil ? "unmasked frame" : "RSV bit set")
            return
        }
        switch frame.opcode {
        case .text, .binary, .continuation:
            guard !refusing else { return }
            read(frame, context: context)
        default:
            context.fireChannelRead(data)
        }
    }

    /// A data frame: part or all of a WebSocket message.
    private func read(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        switch (frame.opcode, fragments) {
        case (.text, .none):
            let data = frame.unmaskedData
            if frame.fin {
                take(bytes: data, context: context)
            } else if data.readableBytes > maxMessageSize {
                refuseTooLarge()
            } else {
                fragments = .text(data)
            }
        case (.binary, .none):
            if frame.fin { return }
            fragments = .binary(frame.length)
        case (.continuation, .text(var buffer)):
            fragments = .none
            guard buffer.readableBytes + frame.length <= maxMessageSize else {
                refuseTooLarge()
                return
            }
            var data = frame.unmaskedData
            buffer.writeBuffer(&data)
            if frame.fin {
                take(bytes: buffer, context: context)
            } else {
                fragments = .text(buffer)
            }
        case (.continuation, .binary(let size)):
            guard size + frame.length <= maxMessageSize else {
                fragments = .none
                refuseTooLarge()
                return
            }
            fragments = frame.fin ? .none : .binary(size + frame.length)
        default:
            // A continuation with no message begun, or a new message inside another.
            refuse(context: context)
        }
    }

    private func take(bytes: ByteBuffer, context: ChannelHandlerContext) {
        guard let text = String(validating: bytes.readableBytesView, as: UTF8.self) else {
            refuse(context: context)
            return
        }
        take(message: text)
    }

    /// Takes one whole WebSocket text message: a protocol message, or part of one.
    func take(message text: String) {
        guard !refusing else { return }
        switch assembler.take(text) {
        case .incomplete:
            break
        case .tooLarge:
            refuseTooLarge()
        case .message(let text):
            if held != nil {
                heldBytes += text.utf8.count
                if heldBytes > maxHeldBytes {
                    held = nil
                    refusing = true
                    context?.close(promise: nil)
                    return
                }
                held?.append(.text(text))
                return
            }
            read(text)
        }
    }

    /// Decodes one message and hands it on; a large write is first read without its data, and
    /// waits for the engine to say whether the rules refuse it whatever it holds.
    private func read(_ text: String) {
        guard text.utf8.count >= Self.checkedWriteSize, let write = RealtimeCodec.peekWrite(text) else {
            deliver(RealtimeCodec.decodeClientFrame(text))
            return
        }
        held = []
        let handler = NIOLoopBound(self, eventLoop: loop)
        // A merge is refused when one of its changes is: its first changes are checked too.
        events.refusesWrites([write.path] + write.merged) { [loop] refused in
            loop.execute { handler.value.writeChecked(text, requestID: write.requestID, refused: refused) }
        }
    }

    /// The engine answered for a large write: refused, it is answered `permission_denied`
    /// unread; else it is read whole. What followed it goes on.
    private func writeChecked(_ text: String, requestID: Int, refused: Path?) {
        let following = held ?? []
        held = nil
        heldBytes = 0
        guard !refusing else { return }
        if let refused {
            deliver(.refused(requestID: requestID, error: .permissionDenied(at: refused)))
        } else {
            deliver(RealtimeCodec.decodeClientFrame(text))
        }
        release(following)
    }

    /// Hands on messages held, in order, until one makes the handler wait again (the rest are
    /// held again behind it).
    private func release(_ messages: [Held]) {
        for (offset, message) in messages.enumerated() {
            if held != nil {
                held?.append(contentsOf: messages[offset...])
                return
            }
            switch message {
            case .frame(let frame): deliver(frame)
            case .text(let text): read(text)
            }
        }
    }

    /// Hands `frame` on, after checking the token of an `auth` request when a project is
    /// configured: a token that does not verify is refused here, with the verifier's reason.
    private func deliver(_ frame: ClientFrame) {
        if held != nil {
            held?.append(.frame(frame))
            return
        }
        guard let verifier, case .request(.auth(let requestID, let token)) = frame else {
            events.message(frame)
            return
        }
        switch verifier.check(token) {
        case .verified:
            events.message(frame)
        case .refused(let error):
            events.message(.refused(requestID: requestID, error: error))
        case .needsKeys:
            held = []
            waitingAuth = frame
            let handler = NIOLoopBound(self, eventLoop: loop)
            Task { [loop] in
                await verifier.refresh()
                loop.execute { handler.value.keysFetched() }
            }
        }
    }

    /// The verifier's keys came (or could not): the held `auth` request is answered, and what
    /// followed it goes on.
    private func keysFetched() {
        guard let verifier, let first = waitingAuth else { return }
        let following = held ?? []
        held = nil
        waitingAuth = nil
        heldBytes = 0
        guard !refusing else { return }
        if case .request(.auth(let requestID, let token)) = first, case .failure(let error) = verifier.checkAfterFetching(token) {
            events.message(.refused(requestID: requestID, error: error))
        } else {
            events.message(first)
        }
        release(following)
    }

    private func refuseTooLarge() {
        refusing = true
        events.tooLarge()
    }

    private func refuse(context: ChannelHandlerContext) {
        refusing = true
        context.close(promise: nil)
    }

    /// Fails the connection for a frame RFC 6455 forbids: a close frame with 1002 (protocol
    /// error), then the close.
    private func failProtocol(context: ChannelHandlerContext, reason: String) {
        guard !refusing else { return }
        refusing = true
        var payload = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        payload.writeInteger(UInt16(1002))
        payload.writeString(reason)
        let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)
        context.writeAndFlush(NIOAny(close)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
