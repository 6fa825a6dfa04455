import EmberCore
import EmberWire

/// One listen of one connection: the query, its tag, and for a filtered query the result last
/// sent, so that only differences travel. A class: the connection's table of listens and the
/// server's tree of them (``ListenRef``) share it, so that a write reaching 1,000 listeners
/// finds each one's tag without looking it up. Confined to the server's thread, as the
/// server is (the `@unchecked Sendable` lets the tree of listens, a `Sendable` structure, hold
/// it).
final class ServerListen: @unchecked Sendable {
    let query: QuerySpec
    /// The client's tag for the query (a listen sent again with another tag replaces it).
    var tag: Int?
    /// The children last sent, for a filtered query.
    var sent: Node = .empty

    init(query: QuerySpec, tag: Int?) {
        self.query = query
        self.tag = tag
    }
}

/// Where a listen lives: its connection and query (what identifies it), and the listen itself.
struct ListenRef: Hashable {
    let connection: ConnectionID
    let listen: ServerListen

    var query: QuerySpec { listen.query }

    static func == (lhs: ListenRef, rhs: ListenRef) -> Bool { lhs.connection == rhs.connection && lhs.query == rhs.query }

    func hash(into hasher: inout Hasher) {
        hasher.combine(connection)
        hasher.combine(query)
    }
}
