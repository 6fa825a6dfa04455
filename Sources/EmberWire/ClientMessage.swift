import EmberCore

/// A message from a client to the server, modelled on the Firebase realtime protocol (`q`
/// listen, `n` unlisten, `p` put, `m` merge, `o`/`om`/`oc` onDisconnect, `g` get, `auth`,
/// `gauth` and `unauth`).
///
/// Every request carries a `requestID`, unique per connection, that the server's answer
/// repeats. Values may hold server values (`{".sv": …}`), which the server resolves.
public enum ClientMessage: Sendable, Hashable {
    /// Start sending the data of `query`. `tag` marks the updates of a filtered query; `hash`
    /// is the hash of the data the client holds, so that an unchanged location is not resent.
    ///
    /// The cases that carry a query are boxed: a `QuerySpec` made every message, a write's too,
    /// 168 bytes (each write waiting in the in-process network's queue carries one).
    indirect case listen(requestID: Int, query: QuerySpec, tag: Int?, hash: String)
    /// Stop a listen.
    indirect case unlisten(requestID: Int, query: QuerySpec, tag: Int?)
    /// Replace the value at `path`. With `hash`, only if the current value still has that hash
    /// (a transaction's guard); otherwise the answer is `datastale`. With `writeKey`, a write
    /// sent again after a lost connection is answered as before instead of applied twice.
    case put(requestID: Int, path: Path, data: Node, hash: String?, writeKey: SentWriteKey? = nil)
    /// Set several paths below `path` at once: all land or none. `writeKey` as for `put`.
    case merge(requestID: Int, path: Path, changes: [WireChange], writeKey: SentWriteKey? = nil)
    /// When this connection ends, replace the value at `path`.
    case onDisconnectPut(requestID: Int, path: Path, data: Node)
    /// When this connection ends, merge into `path`.
    case onDisconnectMerge(requestID: Int, path: Path, changes: [WireChange])
    /// Forget this connection's onDisconnect operations at and below `path`.
    case onDisconnectCancel(requestID: Int, path: Path)
    /// Read the data of `query` once.
    indirect case get(requestID: Int, query: QuerySpec)
    /// From now on the connection acts as the user of `token` (an ``AuthToken``'s text). The
    /// answer is `ok`, or `invalid_token` / `expired_token` (and the connection stays as it was).
    case auth(requestID: Int, token: String)
    /// From now on the connection is not signed in.
    case unauth(requestID: Int)
    /// From now on the connection acts as an administrator (`gauth`): the server takes
    /// `credential` if its policy accepts it (the emulator's `owner`), else answers
    /// `invalid_token`. With an `override`, the rules apply as for the user it names.
    case adminAuth(requestID: Int, credential: String, override: AuthOverride)
    /// Sent first on every connection by a client that keys its writes: `client` is its
    /// lasting identity, `writers` each of its writers (sessions) it may still send writes of,
    /// with the lowest number it may still send (its floor). The server forgets the client's
    /// other writers, and the refusals below each floor: nothing can ask for them again.
    case resume(requestID: Int, client: String, writers: [String: Int64])

    /// The request number the answer carries.
    public var requestID: Int {
        switch self {
        case .listen(let id, _, _, _), .unlisten(let id, _, _), .put(let id, _, _, _, _), .merge(let id, _, _, _),
            .onDisconnectPut(let id, _, _), .onDisconnectMerge(let id, _, _), .onDisconnectCancel(let id, _),
            .get(let id, _), .resume(let id, _, _), .auth(let id, _), .unauth(let id), .adminAuth(let id, _, _):
            id
        }
    }
}
