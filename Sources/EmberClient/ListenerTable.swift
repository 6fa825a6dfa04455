import EmberCore
import EmberSync

/// The listeners registered on a client's queries, and which of them only keep a query synced
/// (`keepSynced` pins, restored pins).
struct ListenerTable {
    private var listeners: [RegistrationID: Listener] = [:]
    private var next = 1
    private var keepSynced: [QuerySpec: RegistrationID] = [:]

    /// How many listeners there are (keep-synced ones included).
    var count: Int { listeners.count }

    /// Registers `listener`; returns its id.
    /// - Complexity: O(1) amortized.
    mutating func add(_ listener: Listener) -> RegistrationID {
        let id = RegistrationID(next)
        next += 1
        listeners[id] = listener
        return id
    }

    /// The listener `id`, if it is still registered.
    /// - Complexity: O(1).
    subscript(id: RegistrationID) -> Listener? { listeners[id] }

    /// Unregisters `id`; returns the listener it was.
    /// - Complexity: O(1).
    mutating func remove(_ id: RegistrationID) -> Listener? {
        listeners.removeValue(forKey: id)
    }

    /// The listeners on `query` (every query at its location for a default query) with `type`
    /// (or any), keep-synced ones aside, in the order they were added.
    /// - Complexity: O(n log n) in the number of listeners.
    func matching(_ query: QuerySpec, type: EventType?) -> [RegistrationID] {
        let pins = Set(keepSynced.values)
        return listeners.filter { id, listener in
            let sameQuery = query.isDefault ? listener.query.path == query.path : listener.query == query
            return sameQuery && !pins.contains(id) && (type.map(listener.accepts) ?? true)
        }.keys.sorted { $0.rawValue < $1.rawValue }
    }

    // MARK: Keep-synced

    /// Whether `query` is kept synced.
    /// - Complexity: O(1).
    func isKeptSynced(_ query: QuerySpec) -> Bool { keepSynced[query] != nil }

    /// Records `id` as the listener that keeps `query` synced.
    /// - Complexity: O(1) amortized.
    mutating func keepSynced(_ query: QuerySpec, by id: RegistrationID) {
        keepSynced[query] = id
    }

    /// Stops recording a listener for `query`; returns it.
    /// - Complexity: O(1).
    mutating func stopKeepingSynced(_ query: QuerySpec) -> RegistrationID? {
        keepSynced.removeValue(forKey: query)
    }

    /// Forgets the keep-synced listeners among `cancelled` (the server ended their listen).
    /// - Complexity: O(k) in the number of keep-synced queries.
    mutating func forgetKeepSynced(_ cancelled: Set<RegistrationID>) {
        keepSynced = keepSynced.filter { !cancelled.contains($0.value) }
    }
}
