import Synchronization

/// What a connection has to send, from the engine thread to the connection's writer: an
/// unbounded stream whose unsent bytes are counted, so that a client that stops reading is cut
/// off once it holds more than its limit instead of growing the server's memory (and nobody
/// else waits for it: the engine never blocks on a slow socket).
final class OutboundFrames: Sendable {
    /// Why the stream ended.
    enum Ending: Int {
        case open = 0
        case closed = 1
        case overflowed = 2
    }

    let stream: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation
    private let unsent = Atomic<Int>(0)
    private let state = Atomic<Int>(Ending.open.rawValue)
    private let limit: Int

    init(limit: Int) {
        (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .unbounded)
        self.limit = limit
    }

    /// Queues `text` to send. Past the limit of unsent bytes the stream ends (overflowed).
    func push(_ text: String) {
        guard state.load(ordering: .relaxed) == Ending.open.rawValue else { return }
        let size = text.utf8.count
        if unsent.add(size, ordering: .relaxed).newValue > limit {
            finish(.overflowed)
            return
        }
        continuation.yield(text)
    }

    /// Counts `text` as sent.
    func sent(_ text: String) {
        unsent.subtract(text.utf8.count, ordering: .relaxed)
    }

    /// Ends the stream: what is queued is still sent, nothing more is taken.
    func finish(_ ending: Ending = .closed) {
        guard state.compareExchange(expected: Ending.open.rawValue, desired: ending.rawValue, ordering: .relaxed).exchanged else { return }
        continuation.finish()
    }

    var ending: Ending { Ending(rawValue: state.load(ordering: .relaxed)) ?? .closed }
}
