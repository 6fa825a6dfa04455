import EmberCore

/// A message from a client to the server, modelled on the Firebase realtime protocol.
///
/// Every request carries a `requestID`, unique per connection, that the server's
/// ``ServerMessage/ack(requestID:status:)`` repeats. This is a sketch: until EmberCore has `Node`
/// and `QueryParams`, values travel as JSON text and queries by their identifier (`nil` for the
/// default query: the whole location).
public enum ClientMessage: Sendable, Hashable {
    /// Start sending the data of `path` under `query`; `tag` marks updates for a filtered query;
    /// `hash` is the hash of the client's cached data, so an unchanged location costs nothing.
    case listen(requestID: Int, path: Path, query: String?, tag: Int?, hash: String?)
    /// Stop a listen.
    case unlisten(requestID: Int, path: Path, query: String?)
    /// Replace the value at `path`. With `hash`, only if the current value still has that hash
    /// (a transaction's guard); otherwise the server answers `datastale`.
    case put(requestID: Int, path: Path, json: String, hash: String?)
    /// Atomically write several children of `path` (keys may be deep paths).
    case merge(requestID: Int, path: Path, json: String)
    /// When this connection ends, replace the value at `path`.
    case onDisconnectPut(requestID: Int, path: Path, json: String)
    /// When this connection ends, merge into `path`.
    case onDisconnectMerge(requestID: Int, path: Path, json: String)
    /// Forget the onDisconnect operations queued at and under `path`.
    case onDisconnectCancel(requestID: Int, path: Path)
    /// Authenticate the connection.
    case auth(requestID: Int, token: String)

    /// The request number the acknowledgement will carry.
    public var requestID: Int {
        switch self {
        case .listen(let id, _, _, _, _), .unlisten(let id, _, _), .put(let id, _, _, _), .merge(let id, _, _),
            .onDisconnectPut(let id, _, _), .onDisconnectMerge(let id, _, _), .onDisconnectCancel(let id, _),
            .auth(let id, _):
            id
        }
    }
}
