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
        let core = context.channel._channelCore
        core.write0(NIOAny(Self.framed(Array(hello.utf8))), promise: nil)
        core.flush0()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard frame.opcode == .text else { return }
        let text = frame.unmaskedData.readableBytesView
        let bytes = Array(text)
        guard let id = Self.number(after: Array(#""r":"#.utf8), in: bytes) else { return }
        let core = context.channel._channelCore
        if Self.find(Array(#""a":"q""#.utf8), in: bytes) != nil {
            hub.add(context.channel)
            core.write0(NIOAny(Self.framed(Array(#"{"t":"d","d":{"r":\#(id),"b":{"s":"ok","d":{}}}}"#.utf8))), promise: nil)
            core.flush0()
            return
        }
        core.write0(NIOAny(Self.framed(Array(#"{"t":"d","d":{"r":\#(id),"b":{"s":"ok","d":""}}}"#.utf8))), promise: nil)
        core.flush0()
        // The put's body, as the update every listener gets.
        let marker = Array(#""b":"#.utf8)
        guard let at = Self.find(marker, in: bytes), bytes.count >= at + marker.count + 2 else { return }
        let body = bytes[(at + marker.count)..<(bytes.count - 2)]
        let update = Self.framed(Array(#"{"t":"d","d":{"b":"#.utf8) + body + Array(#","a":"d"}}"#.utf8))
        var away: [ObjectIdentifier: (loop: any EventLoop, channels: [any Channel])] = [:]
        for listener in hub.all {
            if listener.eventLoop.inEventLoop {
                let core = listener._channelCore
                core.write0(NIOAny(update), promise: nil)
                core.flush0()
            } else {
                away[ObjectIdentifier(listener.eventLoop), default: (listener.eventLoop, [])].channels.append(listener)
            }
        }
        for (_, group) in away {
            let channels = group.channels
            group.loop.execute {
                for listener in channels {
                    let core = listener._channelCore
                    core.write0(NIOAny(update), promise: nil)
                    core.flush0()
                }
            }
        }
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

    /// Where `needle` first starts in `bytes`.
    static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
            if bytes[start..<(start + needle.count)].elementsEqual(needle) { return start }
        }
        return nil
    }

    /// The decimal number right after `needle`.
    static func number(after needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard var index = find(needle, in: bytes).map({ $0 + needle.count }) else { return nil }
        var value = 0
        var digits = 0
        while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
            value = value * 10 + Int(bytes[index] - 48)
            index += 1
            digits += 1
        }
        return digits > 0 ? value : nil
    }
}
