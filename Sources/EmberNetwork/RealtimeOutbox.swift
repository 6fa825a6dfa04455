import EmberEngine
import EmberWire
import NIOCore
import NIOWebSocket

/// The engine side of a database's WebSockets: it encodes what the server sends, and at the end
/// of each engine tick hands every connection's queued frames to the event loops, straight
/// from the engine thread.
///
/// - One wake-up per event loop per tick: the connections with something to send are grouped
///   by their channel's event loop, and each loop runs one closure that writes every batch and
///   flushes each channel once.
/// - One encoding per update: a write that reaches 1,000 listening connections is the same
///   ``ServerMessage`` 1,000 times in a row (same path, same data, same tag); it is encoded
///   once and its bytes shared (a `ByteBuffer` is copied on write, not on share).
/// - Frames are made here, whole (the WebSocket header and the text in one buffer), and written
///   from the WebSocket encoder's place in the channel's pipeline, so that they pass no handler:
///   a delivery costs one buffer shared by all its listeners and one `write` each, not a frame
///   encoded per connection by the pipeline.
///
/// It ends its tick after the server's (it is added to the engine after the server), so that
/// what the server held back for a commit goes out in the same tick. Confined to the engine's
/// thread.
final class RealtimeOutbox: TickParticipant {
    /// The connections with frames queued, in the order they first queued one this tick.
    private var scheduled: [OutboundFrames] = []
    /// The last update encoded and its frames, forgotten at the end of the tick (so that no
    /// value outlives its tick here).
    private var lastUpdate: (message: ServerMessage, frames: [ByteBuffer])?

    init() {}

    /// `message` encoded as the protocol's text, split into frames. Updates are encoded once
    /// for a run of connections that get the same one.
    /// - Complexity: O(n) in the size of the message; O(1) for a repeated update whose data is
    ///   the same node (``Node``'s equality compares storage identity first).
    func frames(for message: ServerMessage, okPayload: RealtimeCodec.OKPayload = .emptyString) -> [ByteBuffer] {
        switch message {
        case .dataUpdate, .mergeUpdate:
            if let lastUpdate, lastUpdate.message == message { return lastUpdate.frames }
            let frames = Self.frames(RealtimeCodec.encode(message))
            lastUpdate = (message, frames)
            return frames
        default:
            return Self.frames(RealtimeCodec.encode(message, okPayload: okPayload))
        }
    }

    /// `text` split into frames as the protocol wants (``RealtimeCodec/frames(_:)``), each a
    /// whole WebSocket text frame (RFC 6455 §5.2: a server's frames are not masked).
    static func frames(_ text: String) -> [ByteBuffer] {
        RealtimeCodec.frames(text).map(framed)
    }

    /// `payload` as one unmasked, final WebSocket text frame: the header, then the text.
    static func framed(_ payload: String) -> ByteBuffer {
        let count = payload.utf8.count
        var buffer = ByteBufferAllocator().buffer(capacity: count + 10)
        buffer.writeInteger(UInt8(0x81))
        if count < 126 {
            buffer.writeInteger(UInt8(count))
        } else if count <= 0xFFFF {
            buffer.writeInteger(UInt8(126))
            buffer.writeInteger(UInt16(count))
        } else {
            buffer.writeInteger(UInt8(127))
            buffer.writeInteger(UInt64(count))
        }
        buffer.writeString(payload)
        return buffer
    }

    /// Holds `connection` for the end of the tick (called once per tick by the connection).
    func schedule(_ connection: OutboundFrames) {
        scheduled.append(connection)
    }

    /// Hands `connection`'s queued frames to its event loop now, ahead of the tick's end.
    func flush(_ connection: OutboundFrames) {
        let batch = connection.takeBatch()
        guard !batch.frames.isEmpty else { return }
        let write = Batch(connection: connection, frames: batch.frames, bytes: batch.bytes)
        if connection.channel.eventLoop.inEventLoop {
            write.write()
        } else {
            connection.channel.eventLoop.execute { write.write() }
        }
    }

    // MARK: TickParticipant

    var hasTickWork: Bool { !scheduled.isEmpty }

    func endTick() {
        lastUpdate = nil
        guard !scheduled.isEmpty else { return }
        let due = scheduled
        scheduled = []
        // Event loops are few (one per core): a list searched linearly.
        var loops: [(loop: any EventLoop, batches: [Batch])] = []
        for connection in due {
            let batch = connection.takeBatch()
            guard !batch.frames.isEmpty else { continue }
            let loop = connection.channel.eventLoop
            let write = Batch(connection: connection, frames: batch.frames, bytes: batch.bytes)
            if let index = loops.firstIndex(where: { $0.loop === loop }) {
                loops[index].batches.append(write)
            } else {
                loops.append((loop, [write]))
            }
        }
        // Run on an event loop (a message handled where it was read), its own channels are
        // written at once, after the other loops have been handed theirs (so that they write
        // meanwhile).
        var own: [Batch] = []
        for (loop, batches) in loops {
            if loop.inEventLoop {
                own = batches
            } else {
                loop.execute {
                    for batch in batches { batch.write() }
                }
            }
        }
        for batch in own { batch.write() }
    }

    /// One connection's frames of one tick, written on its channel's event loop.
    private struct Batch: Sendable {
        let connection: OutboundFrames
        let frames: [ByteBuffer]
        let bytes: Int

        /// Writes the frames and flushes; what the socket did not take counts as unsent while
        /// the channel buffers it. On the channel's event loop.
        func write() {
            guard let context = connection.writingContext() else {
                // The channel is closing: its WebSocket handlers are gone.
                connection.wrote(bytes)
                return
            }
            for frame in frames { context.write(NIOAny(frame), promise: nil) }
            context.flush()
            connection.wrote(bytes)
        }
    }
}
