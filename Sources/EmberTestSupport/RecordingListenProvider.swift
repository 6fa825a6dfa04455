import EmberCore
import EmberSync

/// A listen provider that only records: the active server listens, every call, and the calls
/// that break the listen bookkeeping (starting a listen twice, stopping one that is not active).
///
/// This is the SDK runners' fake listen provider; a runner reports ``violations`` as failures.
public struct RecordingListenProvider: ListenProvider, Sendable {
    /// A server listen: a query and its tag (filtered queries only).
    public struct Listen: Sendable, Hashable, CustomStringConvertible {
        public var query: QuerySpec
        public var tag: QueryTag?

        public init(query: QuerySpec, tag: QueryTag?) {
            self.query = query
            self.tag = tag
        }

        public var description: String {
            tag.map { "\(query) (\($0))" } ?? "\(query)"
        }
    }

    /// One call made by the sync tree.
    public enum Call: Sendable, Hashable {
        case start(Listen)
        case stop(Listen)
    }

    /// The listens started and not yet stopped.
    public private(set) var active: Set<Listen> = []
    /// Every call, in order.
    public private(set) var calls: [Call] = []
    /// A description of each call that broke the bookkeeping, in order.
    public private(set) var violations: [String] = []

    public init() {}

    public mutating func startListening(_ query: QuerySpec, tag: QueryTag?) {
        let listen = Listen(query: query, tag: tag)
        calls.append(.start(listen))
        if !active.insert(listen).inserted {
            violations.append("startListening(\(listen)) while that listen is already active")
        }
    }

    public mutating func stopListening(_ query: QuerySpec, tag: QueryTag?) {
        let listen = Listen(query: query, tag: tag)
        calls.append(.stop(listen))
        if active.remove(listen) == nil {
            violations.append("stopListening(\(listen)) for a listen that is not active")
        }
    }
}
