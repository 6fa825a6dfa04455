import EmberCore
import EmberWire
import Synchronization

/// One REST event stream (`Accept: text/event-stream`): turns what the server sends for its
/// listen into Firebase's events (`put`, `patch`, `keep-alive`, `cancel`, `auth_revoked`;
/// `../shared/reference/firebase-network.md` §2), each `event: NAME\ndata: JSON\n\n` with the
/// path before the data. Events are queued for the response's writer, which writes them as the
/// client reads (the channel's writer waits while the socket is full); past `limit` bytes queued
/// and not yet written (``NetworkLimits/maxUnsentBytes``, as a WebSocket) the stream ends and
/// `overflow` is called (it closes the connection): a client that does not read is cut off
/// instead of the server holding every update for it.
final class EventStream: Sendable {
    private let location: Path
    private let format: JSONFormat
    let stream: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation
    /// Set once the first `put` went out (on the engine thread).
    private let started = Atomic<Bool>(false)
    /// Bytes queued and not yet written, and the limit.
    private let unsent = Atomic<Int>(0)
    private let limit: Int
    private let overflowed = Atomic<Bool>(false)
    private let overflow: @Sendable () -> Void

    init(location: Path, format: JSONFormat, limit: Int = .max, overflow: @escaping @Sendable () -> Void = {}) {
        self.location = location
        self.format = format
        self.limit = limit
        self.overflow = overflow
        (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .unbounded)
    }

    /// The writer wrote `text` (one of the stream's events) to the channel.
    func written(_ text: String) {
        unsent.subtract(text.utf8.count, ordering: .relaxed)
    }

    /// Queues `text` for the writer, unless too much waits already: then the stream ends.
    private func yield(_ text: String) {
        guard !overflowed.load(ordering: .relaxed) else { return }
        let waiting = unsent.add(text.utf8.count, ordering: .relaxed).newValue
        if waiting > limit, !overflowed.exchange(true, ordering: .relaxed) {
            continuation.finish()
            overflow()
            return
        }
        continuation.yield(text)
    }

    /// Takes a message the server sent for the stream's connection (engine thread).
    func take(_ message: ServerMessage) {
        switch message {
        case .dataUpdate(let path, let data, _):
            started.store(true, ordering: .relaxed)
            event("put", path: path, data: { writer in writer.write(data, format: self.format) })
        case .mergeUpdate(let path, let changes, _):
            started.store(true, ordering: .relaxed)
            event("patch", path: path) { writer in RealtimeCodec.writeChanges(changes, format: self.format, to: &writer) }
        case .ack(2, .ok):
            // The listen's answer: the data came first, unless there is none.
            if !started.load(ordering: .relaxed) {
                started.store(true, ordering: .relaxed)
                event("put", path: location) { writer in writer.append(raw: "null") }
            }
        case .ack(2, .failed(let error)):
            cancel(error)
        case .listenRevoked(_, _, let error):
            cancel(error)
        case .authRevoked:
            yield("event: auth_revoked\ndata: credential is no longer valid\n\n")
            continuation.finish()
        default:
            break
        }
    }

    /// A keep-alive event (any thread).
    func keepAlive() {
        yield("event: keep-alive\ndata: null\n\n")
    }

    /// Ends the stream.
    func finish() {
        continuation.finish()
    }

    private func cancel(_ error: DatabaseError) {
        var writer = JSONWriter()
        writer.write(string: error.code == ErrorCode.permissionDenied ? "Permission denied" : error.message)
        yield("event: cancel\ndata: \(writer.output)\n\n")
        continuation.finish()
    }

    private func event(_ name: String, path: Path, data: (inout JSONWriter) -> Void) {
        var writer = JSONWriter()
        writer.append(raw: "event: \(name)\ndata: {\"path\":")
        let relative = location.relative(to: path) ?? .root
        writer.write(string: relative.description)
        writer.append(raw: ",\"data\":")
        data(&writer)
        writer.append(raw: "}\n\n")
        yield(writer.output)
    }
}
