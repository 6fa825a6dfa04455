import EmberCore

/// A `get` waiting for the server: sent when a connection is up, answered from the cache when
/// the client is offline or the server does not answer in time.
struct PendingGet {
    let query: QuerySpec
    /// How long it waits for a connection, in milliseconds, each time it has none.
    let connectTimeout: Int64
    /// The request carrying it on the current connection, once sent.
    var requestID: Int?
    let completion: (Result<Node, DatabaseError>) -> Void
}
