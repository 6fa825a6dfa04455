import EmberCore
import EmberWire
import Synchronization

/// One REST event stream (`Accept: text/event-stream`): turns what the server sends for its
/// listen into Firebase's events (`put`, `patch`, `keep-alive`, `cancel`, `auth_revoked`;
/// `../shared/reference/firebase-network.md` §2), each `event: NAME\ndata: JSON\n\n` with the
/// path before the data. Events are queued for the response's writer.
final class EventStream: Sendable {
    private let location: Path
    private let format: JSONFormat
    let stream: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation
    /// Set once the first `put` went out (on the engine thread).
    private let started = Atomic<Bool>(false)

    init(location: Path, format: JSONFormat) {
        self.location = location
        self.format = format
        (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .unbounded)
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
            continuation.yield("event: auth_revoked\ndata: credential is no longer valid\n\n")
            continuation.finish()
        default:
            break
        }
    }

    /// A keep-alive event (any thread).
    func keepAlive() {
        continuation.yield("event: keep-alive\ndata: null\n\n")
    }

    /// Ends the stream.
    func finish() {
        continuation.finish()
    }

    private func cancel(_ error: DatabaseError) {
        var writer = JSONWriter()
        writer.write(string: error.code == ErrorCode.permissionDenied ? "Permission denied" : error.message)
        continuation.yield("event: cancel\ndata: \(writer.output)\n\n")
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
        continuation.yield(writer.output)
    }
}
