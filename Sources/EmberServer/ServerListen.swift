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
    /// Whether the listen still stands: a listen that ended stays in its location's list
    /// (skipped) until the list is compacted (``ListenRefs``).
    var isListening = true

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

/// The listens at one location, in the order they began. A listen that ends is marked and
/// skipped, and the list compacted once half of it has ended, so that ending one of n listens
/// on one location costs O(1) amortized rather than a scan of the list.
struct ListenRefs: Sendable {
    private(set) var refs: [ListenRef]
    private var ended = 0

    init(_ ref: ListenRef) { refs = [ref] }

    /// Whether no listen stands.
    var isEmpty: Bool { ended == refs.count }

    /// - Complexity: O(1) amortized.
    mutating func append(_ ref: ListenRef) { refs.append(ref) }

    /// Notes that one of the listens ended (its ``ServerListen/isListening`` is already false).
    /// - Complexity: O(1) amortized.
    mutating func noteEnded() {
        ended += 1
        if ended * 2 > refs.count {
            refs.removeAll { !$0.listen.isListening }
            ended = 0
        }
    }

    /// Calls `body` with each listen that stands, in the order they began.
    func forEach(_ body: (ListenRef) -> Void) {
        for ref in refs where ref.listen.isListening { body(ref) }
    }
}
