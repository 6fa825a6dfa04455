import EmberCore

/// How a write the shell made ended, as far as the command waits: acknowledged by the server,
/// or queued (the client is offline), with what else the command reports.
public struct WriteReport {
    /// Where the write stands.
    public enum Status: Sendable, Hashable {
        /// The server acknowledged it.
        case acknowledged
        /// The client is offline: the write is queued and will be sent on reconnection.
        case queued
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

    /// `{"ok": true}`, with `"queued": true` when queued, then ``fields``.
    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("ok", .bool(true))]
        if status == .queued { members.append(("queued", .bool(true))) }
        return .object(members + fields)
    }
}
