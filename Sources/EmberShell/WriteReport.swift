import EmberClient
import EmberCore

/// How a write the shell made ended, as far as the command waits: acknowledged by the server,
/// or queued (the client is offline), with what else the command reports.
public struct WriteReport {
    /// Where the write stands.
    public enum Status: Sendable, Hashable {
        /// The server acknowledged it.
        case acknowledged
        /// The client is not connected (`state`: offline on purpose, or disconnected): the write
        /// is queued and will be sent on reconnection; `keeping` says where the queue is.
        case queued(ConnectionState, keeping: QueueKeeping)
        /// The client's token expired (or was refused): the write is queued and will be sent
        /// once the client has a new token; `reason` says why, for people.
        case held(reason: String)
    }

    public var status: Status
    /// What people are shown instead of `ok` (a push's key, an import's size).
    public var detail: String?
    /// Fields the JSON form carries besides `ok` and `queued`.
    public var fields: [(key: String, value: JSONValue)]

    public init(_ status: Status, detail: String? = nil, fields: [(key: String, value: JSONValue)] = []) {
        self.status = status
        self.detail = detail
        self.fields = fields
    }

    /// `{"ok": true}`, with `"queued": true` when queued (and `"held"`, the reason, when held
    /// for a new token), then ``fields``.
    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("ok", .bool(true))]
        switch status {
        case .acknowledged: break
        case .queued(let state, let keeping):
            members.append(("queued", .bool(true)))
            if state != .offline { members.append(("state", .string(state.description))) }
            if keeping == .inMemory { members.append(("inMemory", .bool(true))) }
        case .held(let reason): members += [("queued", .bool(true)), ("held", .string(reason))]
        }
        return .object(members + fields)
    }
}
