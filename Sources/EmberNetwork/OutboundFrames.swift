import NIOCore
import NIOWebSocket
import Synchronization

/// What one WebSocket has to send: the engine thread queues frames here while it works, and
/// at the end of its tick the database's ``RealtimeOutbox`` hands each connection's batch to
/// the channel's event loop in one go (one wake-up, one flush), straight from the engine
/// thread: no task between them.
///
/// Unsent bytes are counted from the moment a frame is queued until the socket has taken it, so
/// that a client that stops reading is cut off once it holds more than its limit instead of
/// growing the server's memory; nobody else waits for it (the engine never blocks on a slow
/// socket). They are what the engine has handed the event loop and it has not written yet,
/// plus what the channel still buffers: read from the channel after every write, and again
/// whenever its writability changes (so that a buffer that drains is seen even when nothing
/// more is written). No promise per write.
///
/// The queue is the engine thread's; ``finish(_:)``, ``ending`` and ``endings`` are any
/// thread's.
final class OutboundFrames: @unchecked Sendable {
    /// Why the stream ended.
    enum Ending: Int, Sendable {
        case open = 0
        /// The server closed the connection, or the socket ended: a normal close.
        case closed = 1
        /// The client held more unsent data than its limit: the connection is cut.
        case overflowed = 2
    }

    /// The channel the frames go to.
    let channel: any Channel
    /// The channel's event loop, where its frames are written.
    let eventLoop: any EventLoop
    /// The channel's core, where whole frames (``RealtimeOutbox/framed(_:)``) are written, on
    /// the event loop: past every handler of the pipeline, as its head would pass them on
    /// (NIO's `_channelCore`, meant for handlers, is public; `write0` on a closed channel fails
    /// the write and `flush0` does nothing, as writes through the pipeline would).
    let core: any ChannelCore
    /// The database's outbox, which writes the frames at the end of the engine's tick.
    private let outbox: RealtimeOutbox
    /// Yields the ending once, to the socket's task, which closes the WebSocket.
    let endings: AsyncStream<Ending>
    private let endingsContinuation: AsyncStream<Ending>.Continuation
    /// Bytes handed to the event loop, not yet written to the channel.
    private let inFlight = Atomic<Int>(0)
    /// The bytes the channel buffered when last looked at (the event loop's reading).
    private let buffered = Atomic<Int>(0)
    private let state = Atomic<Int>(Ending.open.rawValue)
    private let limit: Int
    // The engine thread's.
    private var pending: [ByteBuffer] = []
    private var pendingBytes = 0
    /// Whether the outbox holds this connection for the end of the tick.
    private var isScheduled = false
    /// Whether what is queued answers a request (an `ok`, a get's data): such a connection's
    /// batch is written before those that only carry updates (``RealtimeOutbox``). Engine
    /// thread.
    private(set) var answers = false

    /// Frames for `channel`, written by `outbox`; the channel may hold at most `limit` unsent
    /// bytes.
    init(channel: any Channel, outbox: RealtimeOutbox, limit: Int) {
        self.channel = channel
        eventLoop = channel.eventLoop
        core = channel._channelCore
        self.outbox = outbox
        self.limit = limit
        (endings, endingsContinuation) = AsyncStream<Ending>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues `frames` (one message, split as the protocol wants) for the end of the tick.
    /// Past the limit of unsent bytes the stream ends (overflowed). Engine thread.
    /// - Parameter answering: whether the message answers one of the client's requests.
    /// - Complexity: O(f) for f frames; the bytes are shared, not copied.
    func push(_ frames: [ByteBuffer], answering: Bool = false) {
        guard state.load(ordering: .relaxed) == Ending.open.rawValue else { return }
        var size = 0
        for frame in frames { size += frame.readableBytes }
        if unsent + pendingBytes + size > limit {
            pending = []
            pendingBytes = 0
            finish(.overflowed)
            return
        }
        if pending.isEmpty {
            // The usual case, one message a tick: the update's frames, shared by all its
            // listeners, are taken as they are (no array made per listener).
            pending = frames
        } else {
            pending.append(contentsOf: frames)
        }
        pendingBytes += size
        if answering { answers = true }
        if !isScheduled {
            isScheduled = true
            outbox.schedule(self)
        }
    }

    /// Bytes not yet taken by the socket, as last known.
    private var unsent: Int { inFlight.load(ordering: .relaxed) + buffered.load(ordering: .relaxed) }

    /// Takes the queued frames for the outbox to write, counting them as unsent until
    /// ``wrote(_:)``; empty once the stream has ended. Engine thread.
    func takeBatch() -> (frames: [ByteBuffer], bytes: Int) {
        isScheduled = false
        answers = false
        defer {
            pending = []
            pendingBytes = 0
        }
        guard state.load(ordering: .relaxed) == Ending.open.rawValue, !pending.isEmpty else { return ([], 0) }
        inFlight.add(pendingBytes, ordering: .relaxed)
        return (pending, pendingBytes)
    }

    /// Counts `bytes` as written to the channel (or dropped with it), and notes what the
    /// channel still buffers. The event loop's.
    ///
    /// While the channel is writable it buffers less than its high-water mark (NIO's default:
    /// 64 KB), counted as nothing when the limit is far above that (the default limit is
    /// 64 MB): reading the exact figure is a generic option lookup with dynamic casts, which
    /// was a few percent of a 1,000-listener fan-out. Once the channel is not writable, or
    /// the limit is small, every write reads the exact figure, and so does every change of
    /// writability.
    func wrote(_ bytes: Int) {
        inFlight.subtract(bytes, ordering: .relaxed)
        if limit > Self.exactBelow && channel.isWritable {
            buffered.store(0, ordering: .relaxed)
        } else {
            noteBuffered()
        }
    }

    /// Limits up to this are enforced with the exact bytes buffered after every write (16 times
    /// NIO's default high-water mark).
    static let exactBelow = 1 << 20

    /// Notes how many bytes the channel buffers now (after a write, or when its writability
    /// changed). The event loop's.
    func noteBuffered() {
        let bytes = (try? channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        buffered.store(bytes, ordering: .relaxed)
    }

    /// Ends the stream: nothing more is taken, and the socket's task closes the WebSocket
    /// (after what the event loop has been handed). Any thread; only the first ending counts.
    func finish(_ ending: Ending = .closed) {
        guard state.compareExchange(expected: Ending.open.rawValue, desired: ending.rawValue, ordering: .relaxed).exchanged else { return }
        endingsContinuation.yield(ending)
        endingsContinuation.finish()
    }

    /// Sends what is queued now, then ends the stream (the server closed the connection).
    /// Engine thread.
    func close() {
        outbox.flush(self)
        finish(.closed)
    }

    var ending: Ending { Ending(rawValue: state.load(ordering: .relaxed)) ?? .closed }
}
