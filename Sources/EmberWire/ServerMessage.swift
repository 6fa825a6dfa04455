import EmberCore

/// A message from the server to a client, modelled on the Firebase realtime protocol (`d` data,
/// `m` merge, `c` listen revoked, `ac` auth revoked, and answers to requests).
public enum ServerMessage: Sendable, Hashable {
    /// The connection is open; the server's clock reads `serverTime` (milliseconds since
    /// 1970), from which the client derives `.info/serverTimeOffset`.
    case handshake(serverTime: Int64)
    /// The answer to the request numbered `requestID`. A listen is answered `ok` after its
    /// initial data, which tells the client its data is complete.
    case ack(requestID: Int, status: AckStatus)
    /// The answer to a `get`: the query's data, or why it could not be read.
    indirect case getResult(requestID: Int, result: GetResult)
    /// The value at `path` is now `data`; `tag` names the filtered query it is for.
    case dataUpdate(path: Path, data: Node, tag: Int?)
    /// These paths below `path` changed; `tag` names the filtered query it is for.
    case mergeUpdate(path: Path, changes: [WireChange], tag: Int?)
    /// The server cancelled a listen (for example, permission was lost).
    ///
    /// The rare cases that carry a query or an error are boxed: they made every message, each
    /// write's answer too, 192 bytes (every answer waiting in the in-process network's queue
    /// carries one).
    indirect case listenRevoked(query: QuerySpec, tag: Int?, error: DatabaseError)
    /// The server no longer takes the connection's token (it expired: `expired_token`): the
    /// connection is not signed in any more.
    indirect case authRevoked(error: DatabaseError)
}

/// What a `get` returns.
public enum GetResult: Sendable, Hashable {
    case data(Node)
    case failed(DatabaseError)
}
