import NIOCore
import NIOWebSocket

/// One WebSocket of the floor server (``FloorServer``).
final class FloorHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame

    private let hub: FloorServer.Hub

    init(hub: FloorServer.Hub) {
        self.hub = hub
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let hello = #"{"t":"c","d":{"t":"h","d":{"ts":0,"v":"5","h":"127.0.0.1","s":"floor"}}}"#
        Self.write(Self.framed(Array(hello.utf8)), to: context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard frame.opcode == .text else { return }
        // Searched as the bench's clients search what they read (``BenchSocket/Payload``).
        guard let update = frame.unmaskedData.withUnsafeReadableBytes({ answer(BenchSocket.Payload(bytes: $0), on: context.channel) })
        else { return }
        var away: [ObjectIdentifier: (loop: any EventLoop, channels: [any Channel])] = [:]
        for listener in hub.all {
            if listener.eventLoop.inEventLoop {
                Self.write(update, to: listener)
            } else {
                away[ObjectIdentifier(listener.eventLoop), default: (listener.eventLoop, [])].channels.append(listener)
            }
        }
        for (_, group) in away {
            let channels = group.channels
            group.loop.execute {
                for listener in channels { Self.write(update, to: listener) }
            }
        }
    }

    /// Answers the request in `payload` on `channel`; for a put, the update every listener gets.
    private func answer(_ payload: BenchSocket.Payload, on channel: any Channel) -> ByteBuffer? {
        guard let id = payload.number(after: #""r":"#) else { return nil }
        if payload.contains(#""a":"q""#) {
            hub.add(channel)
            Self.write(Self.framed(Array(#"{"t":"d","d":{"r":\#(id),"b":{"s":"ok","d":{}}}}"#.utf8)), to: channel)
            return nil
        }
        Self.write(Self.framed(Array(#"{"t":"d","d":{"r":\#(id),"b":{"s":"ok","d":""}}}"#.utf8)), to: channel)
        // The put's body (up to the request's two closing braces), as the update.
        guard let start = payload.find(#""b":"#), payload.bytes.count >= start + 2 else { return nil }
        let body = payload.bytes[start..<(payload.bytes.count - 2)]
        return Self.framed(Array(#"{"t":"d","d":{"b":"#.utf8) + body + Array(#","a":"d"}}"#.utf8))
    }

    /// Writes one whole frame to `channel`'s core and flushes, as Ember writes its frames.
    private static func write(_ frame: ByteBuffer, to channel: any Channel) {
        let core = channel._channelCore
        core.write0(NIOAny(frame), promise: nil)
        core.flush0()
    }

    /// `payload` as one unmasked, final text frame.
    static func framed(_ payload: [UInt8]) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: payload.count + 10)
        buffer.writeInteger(UInt8(0x81))
        if payload.count < 126 {
            buffer.writeInteger(UInt8(payload.count))
        } else {
            buffer.writeInteger(UInt8(126))
            buffer.writeInteger(UInt16(payload.count))
        }
        buffer.writeBytes(payload)
        return buffer
    }
}
