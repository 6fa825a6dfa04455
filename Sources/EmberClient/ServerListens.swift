import EmberCore
import EmberSync

/// The listens a client holds on the server, by query as sent.
struct ServerListens {
    private var listens: [QuerySpec: ActiveListen] = [:]

    /// Starts holding a listen; returns it, to be sent.
    /// - Complexity: O(1) amortized.
    mutating func start(_ query: QuerySpec, tag: QueryTag?) -> ActiveListen {
        let listen = ActiveListen(query: query, tag: tag)
        listens[query] = listen
        return listen
    }

    /// Stops holding the listen of `query`; returns whether it was held.
    /// - Complexity: O(1).
    mutating func stop(_ query: QuerySpec) -> Bool {
        listens.removeValue(forKey: query) != nil
    }

    /// Whether `listen` is held now (an answer for an older listen of the query is stale).
    /// - Complexity: O(1).
    func holds(_ listen: ActiveListen) -> Bool { listens[listen.query] == listen }

    /// Whether a held listen loads all of the data at `path` (at it or above).
    /// - Complexity: O(n) in the number of listens.
    func loadsAllData(at path: Path) -> Bool {
        listens.keys.contains { $0.path.contains(path) && $0.loadsAllData }
    }

    /// The listens, by location, then in the order the queries were made (their tags): the
    /// same order on every run.
    /// - Complexity: O(n log n).
    var ordered: [ActiveListen] {
        listens.values.sorted {
            $0.query.path != $1.query.path ? $0.query.path < $1.query.path : ($0.tag?.rawValue ?? 0) < ($1.tag?.rawValue ?? 0)
        }
    }

    /// The queries listened to, by location.
    /// - Complexity: O(n log n).
    var queries: [QuerySpec] { listens.keys.sorted { $0.path < $1.path } }
}
