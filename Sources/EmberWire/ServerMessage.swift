import EmberCore

/// A message from the server to a client, modelled on the Firebase realtime protocol.
///
/// A sketch like ``ClientMessage``: values travel as JSON text until EmberCore has `Node`.
public enum ServerMessage: Sendable, Hashable {
    /// The connection is open; the server's clock reads `serverTime` (milliseconds since
    /// 1970), from which the client derives `.info/serverTimeOffset`.
    case handshake(serverTime: Int64)
    /// The answer to the request numbered `requestID`.
    case ack(requestID: Int, status: AckStatus)
    /// The value at `path` is now `json`; `tag` names the filtered query it is for.
    case dataUpdate(path: Path, json: String, tag: Int?)
    /// These children of `path` changed; `tag` names the filtered query it is for.
    case mergeUpdate(path: Path, json: String, tag: Int?)
    /// The server cancelled a listen (for example, permission was lost).
    case listenRevoked(path: Path, query: String?, error: DatabaseError)
}
