import EmberEngine
import EmberWire
import NIOCore
import NIOWebSocket
import Synchronization

/// The engine side of a database's WebSockets: it encodes what the server sends, and at the end
/// of each engine tick hands every connection's queued frames to the event loops, straight
/// from the engine thread.
///
/// - Few wake-ups per event loop per tick: the connections with something to send are grouped
///   by their channel's event loop, and each loop runs one closure per ``chunk`` of them that
///   writes every batch and flushes each channel once (a tick that reaches fewer connections
///   than a chunk hands each loop one closure at its end; a fan-out has the other loops writing
///   while the engine still queues).
/// - One encoding per update: a write that reaches 1,000 listening connections is the same
///   ``ServerMessage`` 1,000 times in a row (same path, same data, same tag); it is encoded
///   once and its bytes shared (a `ByteBuffer` is copied on write, not on share).
/// - Frames are made here, whole (the WebSocket header and the text in one buffer), and written
///   to the channel's core (``OutboundFrames/core``), so that they pass no handler:
///   a delivery costs one buffer shared by all its listeners and one `write` each, not a frame
///   encoded per connection by the pipeline.
///
/// It ends its tick after the server's (it is added to the engine after the server), so that
/// what the server held back for a commit goes out in the same tick. Confined to the engine's
/// thread.
final class RealtimeOutbox: TickParticipant {
    /// The connections of the event loop running the engine (if one does) with frames
    /// queued, in the order they first queued one this tick: written at the tick's end.
    private var scheduled: [OutboundFrames] = []
    /// The connections of other event loops with frames queued, by loop: handed to their loop
    /// in chunks as they fill (``chunk``), the rest at the tick's end.
    private var away: [(loop: any EventLoop, connections: [OutboundFrames])] = []
    /// The last update encoded and its frames, forgotten at the end of the tick (so that no
    /// value outlives its tick here).
    private var lastUpdate: (message: ServerMessage, frames: [ByteBuffer])?
    /// Each event loop's count of write tasks handed to it and not run yet (made on first use).
    private var loopWrites: [ObjectIdentifier: LoopWrites] = [:]

    /// How many write tasks an event loop has been handed and not run yet: while any is
    /// pending, the loop writes nothing at once (``writeNow(_:on:)``), so that frames from a
    /// later engine turn it runs itself do not overtake those of an earlier turn handed to it
    /// (a listener was left with an older value than the server's: frames.py `crossLoops`).
    /// Raised by whoever runs the engine (under its lock), lowered by the loop after a task's
    /// writes.
    private final class LoopWrites: Sendable {
        let pending = Atomic<Int>(0)
    }

    init() {}

    /// `message` encoded as the protocol's text, split into frames. Updates are encoded once
    /// for a run of connections that get the same one.
    /// - Complexity: O(n) in the size of the message; O(1) for a repeated update whose data is
    ///   the same node (``Node``'s equality compares storage identity first).
    func frames(for message: ServerMessage) -> [ByteBuffer] {
        switch message {
        case .dataUpdate, .mergeUpdate:
            if let lastUpdate, lastUpdate.message == message { return lastUpdate.frames }
            let frames = Self.frames(RealtimeCodec.encode(message))
            lastUpdate = (message, frames)
            return frames
        default:
            return Self.frames(RealtimeCodec.encode(message))
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

    /// How many connections of another event loop are handed to it at once while the tick
    /// runs: a write that reaches 1,000 listeners has the other loop writing after the first
    /// 64 instead of after all 1,000 have been queued (the first deliveries of a fan-out went
    /// out about half a millisecond later), while a tick that reaches a few connections still
    /// hands each loop one batch at its end.
    static let chunk = 64

    /// Holds `connection` for the end of the tick, or for its loop's next chunk (called once
    /// per tick by the connection, and again if it queues more after its chunk went).
    /// - Complexity: O(l) for l event loops (one per core), plus O(``chunk``) once a chunk fills.
    func schedule(_ connection: OutboundFrames) {
        let loop = connection.eventLoop
        if loop.inEventLoop {
            scheduled.append(connection)
            if scheduled.count >= Self.chunk {
                // A fan-out: this loop's listeners are written as they fill a chunk too, as the
                // other loops' are, not all after the last one was queued.
                let batches = Self.answersFirst(scheduled.compactMap(Batch.init(taking:)))
                scheduled.removeAll(keepingCapacity: true)
                writeNow(batches, on: loop)
            }
            return
        }
        // Event loops are few (one per core): a list searched linearly.
        let index: Int
        if let found = away.firstIndex(where: { $0.loop === loop }) {
            index = found
            away[index].connections.append(connection)
        } else {
            index = away.count
            away.append((loop, [connection]))
        }
        if away[index].connections.count >= Self.chunk { handAway(index) }
    }

    /// Takes the frames of the connections waiting for `away[index]`'s loop and has the loop
    /// write them, in one closure.
    private func handAway(_ index: Int) {
        let batches = Self.answersFirst(away[index].connections.compactMap(Batch.init(taking:)))
        away[index].connections.removeAll(keepingCapacity: true)
        writeLater(batches, on: away[index].loop)
    }

    /// Writes `batches` at once on `loop`, the calling thread's event loop, unless write tasks
    /// handed to it earlier have not run yet: then after them, as one more (a connection's
    /// frames go out in the order of the engine's turns).
    private func writeNow(_ batches: [Batch], on loop: any EventLoop) {
        guard !batches.isEmpty else { return }
        if writes(of: loop).pending.load(ordering: .acquiring) == 0 {
            for batch in batches { batch.write() }
        } else {
            writeLater(batches, on: loop)
        }
    }

    /// Has `loop` write `batches` as a task, after every task handed to it before.
    private func writeLater(_ batches: [Batch], on loop: any EventLoop) {
        guard !batches.isEmpty else { return }
        let writes = writes(of: loop)
        writes.pending.add(1, ordering: .relaxed)
        loop.execute {
            for batch in batches { batch.write() }
            writes.pending.subtract(1, ordering: .releasing)
        }
    }

    /// `loop`'s count of pending write tasks.
    /// - Complexity: O(1) amortized.
    private func writes(of loop: any EventLoop) -> LoopWrites {
        if let writes = loopWrites[ObjectIdentifier(loop)] { return writes }
        let writes = LoopWrites()
        loopWrites[ObjectIdentifier(loop)] = writes
        return writes
    }

    /// `batches` with those that answer a request first, each group in its order: a writer
    /// waits for its `ok`, a listener's update is not late for being second (there is no order
    /// between connections; within one, a listen's data still comes before the write's `ok`,
    /// one batch).
    /// - Complexity: O(n).
    private static func answersFirst(_ batches: [Batch]) -> [Batch] {
        guard batches.contains(where: { !$0.answers }), batches.contains(where: \.answers) else { return batches }
        return batches.filter(\.answers) + batches.filter { !$0.answers }
    }

    /// Hands `connection`'s queued frames to its event loop now, ahead of the tick's end.
    func flush(_ connection: OutboundFrames) {
        guard let write = Batch(taking: connection) else { return }
        if connection.eventLoop.inEventLoop {
            writeNow([write], on: connection.eventLoop)
        } else {
            writeLater([write], on: connection.eventLoop)
        }
    }

    // MARK: TickParticipant

    var hasTickWork: Bool { !scheduled.isEmpty || away.contains { !$0.connections.isEmpty } }

    func endTick() {
        lastUpdate = nil
        // Run on an event loop (a message handled where it was read): the answers to its own
        // connections first, at once (a writer waits for its `ok`; handing the other loops
        // their batches may mean waking them, a system call each).
        let due = scheduled
        scheduled = []
        let batches = due.compactMap(Batch.init(taking:))
        let loop = due.first?.eventLoop
        if let loop { writeNow(batches.filter(\.answers), on: loop) }
        // Then the other loops, so that they write meanwhile.
        for index in away.indices where !away[index].connections.isEmpty { handAway(index) }
        // The rest of its own as a task of this loop, after the caller has let go of the
        // engine: the write calls are most of a message's cost, and another loop waiting for
        // the engine need not wait for them.
        if let loop { writeLater(batches.filter { !$0.answers }, on: loop) }
    }

    /// One connection's frames of one tick, written on its channel's event loop.
    private struct Batch: Sendable {
        let connection: OutboundFrames
        let frames: [ByteBuffer]
        let bytes: Int
        /// Whether it answers a request (``OutboundFrames/answers``).
        let answers: Bool

        /// `connection`'s queued frames, taken (``OutboundFrames/takeBatch()``); `nil` when
        /// it has none (or its stream ended).
        init?(taking connection: OutboundFrames) {
            answers = connection.answers
            let batch = connection.takeBatch()
            guard !batch.frames.isEmpty else { return nil }
            self.connection = connection
            frames = batch.frames
            bytes = batch.bytes
        }

        /// Writes the frames and flushes; what the socket did not take counts as unsent while
        /// the channel buffers it. On the channel's event loop.
        func write() {
            let core = connection.core
            for frame in frames { core.write0(NIOAny(frame), promise: nil) }
            core.flush0()
            connection.wrote(bytes)
        }
    }
}
