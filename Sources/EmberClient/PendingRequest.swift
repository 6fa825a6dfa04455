import EmberCore
import EmberSync
import EmberWire

/// A request sent on the current connection and not answered yet, by what its answer means.
enum PendingRequest {
    /// A listen: `ok` completes its data. Boxed: an `ActiveListen` (137 bytes) made every
    /// request, a pending write's too, 144 bytes in the table of requests in flight (a million
    /// pending writes of a Lua loop kept hundreds of MB there). An onDisconnect request (48) too.
    indirect case listen(ActiveListen)
    /// An unlisten (its answer means nothing).
    case unlisten
    /// A set or update of the write queue.
    case write(WriteID)
    /// The guarded put of a batch of transactions (those sent with this request number).
    case transactions(Int)
    /// An onDisconnect registration or cancellation.
    indirect case onDisconnect(OnDisconnectRequest)
    /// A `get`.
    case get(GetRequestID)
    /// The writers the client may still send writes of (its answer means nothing).
    case resume
    /// The client's token: `ok` releases the writes held for it.
    case auth(AuthToken)
    /// Signing out (its answer means nothing).
    case unauth
}
