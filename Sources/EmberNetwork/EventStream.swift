import EmberCore
import EmberServer
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
    /// For a shallow stream (`shallow=true`, Ember's extension), how to read a child's data now
    /// (on the engine thread); `nil` for a stream of the whole data.
    private let shallow: (@Sendable (Path) -> Node)?

    init(
        location: Path, format: JSONFormat, limit: Int = .max, shallow: (@Sendable (Path) -> Node)? = nil,
        overflow: @escaping @Sendable () -> Void = {}
    ) {
        self.location = location
        self.format = format
        self.shallow = shallow
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

    /// Takes what the stream's listen heard (engine thread).
    func take(_ message: ServerListenEvent) {
        if let shallow {
            takeShallow(message, reading: shallow)
            return
        }
        switch message {
        case .data(let path, let data):
            started.store(true, ordering: .relaxed)
            event("put", path: path, data: { writer in writer.write(data, format: self.format) })
        case .merge(let path, let changes):
            started.store(true, ordering: .relaxed)
            event("patch", path: path) { writer in RealtimeCodec.writeChanges(changes, format: self.format, to: &writer) }
        default:
            takeAnswer(message)
        }
    }

    /// A shallow stream's events (Ember's extension of Firebase's streams, for a viewer of big
    /// data): only the location's children, each a leaf's value or `{}` for an object (an empty
    /// object is no data in Firebase, so it cannot be mistaken for a value), never what is
    /// below them. The first `put` is the children; a change anywhere below a child is a `patch`
    /// of the location with that child's new shallow value (null when it is gone), read from
    /// the server's data.
    private func takeShallow(_ message: ServerListenEvent, reading read: (Path) -> Node) {
        func shallowValue(_ node: Node, to writer: inout JSONWriter) {
            if node.isEmpty {
                writer.append(raw: "null")
            } else if node.isLeaf {
                writer.write(node.withPriority(nil), format: .normal)
            } else {
                writer.append(raw: "{}")
            }
        }
        func patch(_ keys: [ChildKey]) {
            event("patch", path: location) { writer in
                writer.append(raw: "{")
                for (index, key) in keys.enumerated() {
                    if index > 0 { writer.append(raw: ",") }
                    writer.write(string: key.name)
                    writer.append(raw: ":")
                    shallowValue(read(location.child(key)), to: &writer)
                }
                writer.append(raw: "}")
            }
        }
        switch message {
        case .data(let path, let data):
            started.store(true, ordering: .relaxed)
            guard let relative = location.relative(to: path), let key = relative.front else {
                // The location itself: its children, shallow.
                event("put", path: location) { writer in
                    guard !data.isLeaf else { return shallowValue(data, to: &writer) }
                    writer.append(raw: "{")
                    for (index, child) in data.children.enumerated() {
                        if index > 0 { writer.append(raw: ",") }
                        writer.write(string: child.key.name)
                        writer.append(raw: ":")
                        shallowValue(child.node, to: &writer)
                    }
                    writer.append(raw: "}")
                }
                return
            }
            if relative.count == 1 {
                // A child replaced, or leaving a limited window (null): what the server sent.
                event("patch", path: location) { writer in
                    writer.append(raw: "{")
                    writer.write(string: key.name)
                    writer.append(raw: ":")
                    shallowValue(data, to: &writer)
                    writer.append(raw: "}")
                }
            } else {
                patch([key])
            }
        case .merge(let path, let changes):
            started.store(true, ordering: .relaxed)
            if let relative = location.relative(to: path), let key = relative.front {
                patch([key])
            } else {
                var keys: [ChildKey] = []
                for change in changes { if let key = change.path.front, !keys.contains(key) { keys.append(key) } }
                patch(keys)
            }
        default:
            takeAnswer(message)
        }
    }

    /// The events every stream shares: the listen's answer (a stream whose data is null gets
    /// its first `put` then), its cancellation, and the end of the credential.
    private func takeAnswer(_ message: ServerListenEvent) {
        switch message {
        case .answered(.ok):
            if !started.load(ordering: .relaxed) {
                started.store(true, ordering: .relaxed)
                event("put", path: location) { writer in writer.append(raw: "null") }
            }
        case .answered(.failed(let error)), .revoked(let error):
            cancel(error)
        case .signedOut:
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
