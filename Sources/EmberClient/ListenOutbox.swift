import EmberCore
import EmberSync

/// The ``ListenProvider`` a repo gives its sync tree: it records which listens to start and stop,
/// and the repo turns them into wire messages once the tree's operation returns.
struct ListenOutbox: ListenProvider {
    /// One listen to start or stop.
    enum Request: Sendable, Hashable {
        case start(QuerySpec, QueryTag?)
        case stop(QuerySpec, QueryTag?)
    }

    private(set) var requests: [Request] = []

    mutating func startListening(_ query: QuerySpec, tag: QueryTag?) {
        requests.append(.start(query, tag))
    }

    mutating func stopListening(_ query: QuerySpec, tag: QueryTag?) {
        requests.append(.stop(query, tag))
    }

    /// Hands over the recorded requests, oldest first, and forgets them.
    mutating func take() -> [Request] {
        defer { requests.removeAll(keepingCapacity: true) }
        return requests
    }
}
