import EmberCore
import EmberSync

/// A location with an order and a window: what a listener or a `get` reads.
///
/// Immutable: each modifier returns a new query, and a bad one (a second order-by, a limit that
/// is not positive, ...) throws. A ``Reference`` is the query of a whole location.
public struct Query {
    public let database: Database
    /// The location and its parameters.
    public let spec: QuerySpec

    init(database: Database, spec: QuerySpec) {
        self.database = database
        self.spec = spec
    }

    /// The location.
    public var reference: Reference { Reference(database: database, path: spec.path) }

    // MARK: Modifiers

    public func order(by index: Index) throws(DatabaseError) -> Query { try with(spec.params.orderedBy(index)) }
    public func orderByKey() throws(DatabaseError) -> Query { try order(by: .key) }
    public func orderByValue() throws(DatabaseError) -> Query { try order(by: .value) }
    public func orderByPriority() throws(DatabaseError) -> Query { try order(by: .priority) }
    public func orderByChild(_ path: String) throws(DatabaseError) -> Query {
        let child = try Path(validating: path)
        if child.isEmpty { throw .invalidQuery("orderByChild needs a child path", at: spec.path) }
        return try order(by: .child(child))
    }
    public func limitToFirst(_ count: Int) throws(DatabaseError) -> Query { try with(spec.params.limitedToFirst(count)) }
    public func limitToLast(_ count: Int) throws(DatabaseError) -> Query { try with(spec.params.limitedToLast(count)) }
    public func startAt(_ value: LeafValue?, key: String? = nil) throws(DatabaseError) -> Query {
        try with(spec.params.startingAt(value, key: try key.map(Self.key)))
    }
    public func startAfter(_ value: LeafValue?, key: String? = nil) throws(DatabaseError) -> Query {
        try with(spec.params.startingAfter(value, key: try key.map(Self.key)))
    }
    public func endAt(_ value: LeafValue?, key: String? = nil) throws(DatabaseError) -> Query {
        try with(spec.params.endingAt(value, key: try key.map(Self.key)))
    }
    public func endBefore(_ value: LeafValue?, key: String? = nil) throws(DatabaseError) -> Query {
        try with(spec.params.endingBefore(value, key: try key.map(Self.key)))
    }
    public func equalTo(_ value: LeafValue?, key: String? = nil) throws(DatabaseError) -> Query {
        try with(spec.params.equalTo(value, key: try key.map(Self.key)))
    }

    private func with(_ params: QueryParams) -> Query {
        Query(database: database, spec: QuerySpec(path: spec.path, params: params))
    }

    private static func key(_ name: String) throws(DatabaseError) -> ChildKey {
        try ChildKey(validating: name)
    }

    // MARK: Listening

    /// Calls `handler` with every event of the given types, starting with the initial ones.
    @discardableResult
    public func observe(_ types: Set<EventType>, handler: @escaping (ListenerEvent) -> Void) -> ListenerHandle {
        defer { database.repo.deliverLocalEvents() }
        let id = database.repo.addListener(spec, types: types, callback: handler)
        return ListenerHandle(id.rawValue)
    }

    /// Calls `callback` with the snapshot (and, for child events, the previous sibling's key)
    /// of every `type` event; `cancelled` if the server refuses or revokes the listen.
    @discardableResult
    public func observe(
        _ type: EventType, cancelled: ((DatabaseError) -> Void)? = nil,
        _ callback: @escaping (DataSnapshot, String?) -> Void
    ) -> ListenerHandle {
        observe([type]) { event in
            switch event {
            case .data(_, let snapshot, let previous): callback(snapshot, previous)
            case .cancelled(let error): cancelled?(error)
            }
        }
    }

    /// Calls `callback` with the first `type` event only, then stops listening.
    public func observeOnce(_ type: EventType, _ callback: @escaping (Result<(DataSnapshot, String?), DatabaseError>) -> Void) {
        defer { database.repo.deliverLocalEvents() }
        _ = database.repo.addListener(spec, types: [type], once: true) { event in
            switch event {
            case .data(_, let snapshot, let previous): callback(.success((snapshot, previous)))
            case .cancelled(let error): callback(.failure(error))
            }
        }
    }

    /// The first `type` event (the SDKs' `once`).
    nonisolated(nonsending) public func once(_ type: EventType = .value) async throws(DatabaseError) -> (DataSnapshot, String?) {
        try await database.waitFor { observeOnce(type, $0) }
    }

    /// Removes the listeners of this query with `type`, or all of them; on a whole location,
    /// those of every query there. Listeners below stay.
    public func removeObservers(_ type: EventType? = nil) {
        defer { database.repo.deliverLocalEvents() }
        database.repo.removeListeners(spec, type: type)
    }

    /// Keeps the query's data synced (and cached) with no listener, or stops.
    public func keepSynced(_ on: Bool) throws(DatabaseError) {
        defer { database.repo.deliverLocalEvents() }
        try database.repo.keepSynced(spec, on)
    }

    // MARK: Reading once

    /// How long a get made while not connected waits for the connection by default, in
    /// milliseconds: 3 s, the SDKs' GET_CONNECT_TIMEOUT.
    public static let defaultGetConnectTimeout: Int64 = 3_000

    /// The longest wait for the connection a get accepts (1 day, in milliseconds); a longer
    /// `connectTimeout` is cut to it, so that the timer's `now + limit` cannot overflow.
    public static let maximumGetConnectTimeout: Int64 = 86_400_000

    /// Reads the data once: from the server when connected, from the cache offline.
    ///
    /// Not connected, it answers at once with what the cache can vouch for; otherwise it waits
    /// for the connection up to `connectTimeout` milliseconds (by default 3 s, the SDKs'
    /// GET_CONNECT_TIMEOUT; at most a day, negative meaning no wait), then fails with
    /// `offline` when the cache still has nothing.
    public func getData(connectTimeout: Int64? = nil, _ completion: @escaping (Result<DataSnapshot, DatabaseError>) -> Void) {
        let database = database
        let spec = spec
        defer { database.repo.deliverLocalEvents() }
        database.repo.get(spec, connectTimeout: connectTimeout) { result in
            completion(result.map { DataSnapshot(database: database, path: spec.path, node: $0, index: spec.params.index) })
        }
    }

    /// Reads the data once: from the server when connected, from the cache offline; not
    /// connected with nothing cached, it waits up to `connectTimeout` milliseconds (3 s by
    /// default) for the connection, as ``getData(connectTimeout:_:)`` does.
    nonisolated(nonsending) public func get(connectTimeout: Int64? = nil) async throws(DatabaseError) -> DataSnapshot {
        try await database.waitFor { getData(connectTimeout: connectTimeout, $0) }
    }
}
