import EmberCore
import EmberWire

/// One listen of one connection: the query, its tag, and for a filtered query the result last
/// sent, so that only differences travel.
struct ServerListen {
    let query: QuerySpec
    let tag: Int?
    /// The children last sent, for a filtered query.
    var sent: Node = .empty
}

/// Where a listen lives: its connection and query.
struct ListenRef: Hashable {
    let connection: ConnectionID
    let query: QuerySpec
}
