import EmberCore

/// How a shell `transaction` ended.
public enum TransactionReport {
    /// The client is offline: the transaction runs again when it reconnects.
    case queued(attempts: Int)
    /// The client's token expired (or was refused): the transaction runs again once the client
    /// has a new token.
    case held(attempts: Int, reason: String)
    /// The server committed it, or its function aborted; `value` is the location's value.
    case finished(committed: Bool, value: JSONValue, attempts: Int)

    /// `{"committed", "value", "attempts"}`, or `{"committed": false, "queued": true, "attempts"}`.
    public var json: JSONValue {
        switch self {
        case .queued(let attempts):
            .object([("committed", .bool(false)), ("queued", .bool(true)), ("attempts", .int(Int64(attempts)))])
        case .held(let attempts, let reason):
            .object([
                ("committed", .bool(false)), ("queued", .bool(true)), ("held", .string(reason)), ("attempts", .int(Int64(attempts))),
            ])
        case .finished(let committed, let value, let attempts):
            .object([("committed", .bool(committed)), ("value", value), ("attempts", .int(Int64(attempts)))])
        }
    }
}
