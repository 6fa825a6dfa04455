import EmberCore
import EmberSync
import EmberWire

/// A location in the database, to write, read and listen to (the SDKs' `DatabaseReference`).
///
/// Writes are optimistic: listeners see them before the method returns; the server's answer
/// comes later through the completion (or the `async` form). Offline, writes queue and are sent
/// in order on reconnection.
public struct Reference {
    public let database: Database
    public let path: Path

    init(database: Database, path: Path) {
        self.database = database
        self.path = path
    }

    /// The last key of the path (`nil` at the root).
    public var key: String? { path.back?.name }

    /// The parent location (`nil` at the root).
    public var parent: Reference? { path.parent.map { Reference(database: database, path: $0) } }

    /// The root.
    public var root: Reference { Reference(database: database, path: .root) }

    /// The location `relativePath` below this one (`"a/b"`).
    /// - Throws: `invalid_path` or `path_too_deep`.
    public func child(_ relativePath: String) throws(DatabaseError) -> Reference {
        Reference(database: database, path: try path.appending(validating: relativePath))
    }

    /// This location as a query (every child, in priority order).
    public var query: Query { Query(database: database, spec: .default(at: path)) }

    /// This location with `params` (built and checked already, e.g. by the shell's parser).
    public func query(_ params: QueryParams) -> Query {
        Query(database: database, spec: QuerySpec(path: path, params: params))
    }

    // MARK: Writing with completions

    /// Replaces the value (`nil` deletes); `completion` gets the server's answer.
    /// - Throws: `invalid_*` naming the bad field, before anything changes.
    public func setValue(
        _ value: JSONValue, priority: Priority? = nil, completion: @escaping (DatabaseError?) -> Void = { _ in }
    ) throws(DatabaseError) {
        var node = try Node(json: value, at: path)
        if let priority {
            if node.isEmpty { throw .invalidValue("a priority needs a value", at: path) }
            node = node.withPriority(priority)
        }
        defer { database.repo.deliverLocalEvents() }
        try database.repo.set(node, at: path, completion: completion)
    }

    /// Replaces the value with `node`.
    public func setNode(_ node: Node, completion: @escaping (DatabaseError?) -> Void = { _ in }) throws(DatabaseError) {
        defer { database.repo.deliverLocalEvents() }
        try database.repo.set(node, at: path, completion: completion)
    }

    /// Writes several children, or deep paths (`"a/b"`), of this location atomically.
    /// - Throws: `invalid_*` for a bad path or value, or a path written twice.
    public func updateChildValues(
        _ values: KeyValuePairs<String, JSONValue>, completion: @escaping (DatabaseError?) -> Void = { _ in }
    ) throws(DatabaseError) {
        var changes: [(Path, Node)] = []
        for (key, value) in values {
            let relative = try Path(validatingWriteTarget: key)
            changes.append((relative, try Node(json: value, at: path.appending(relative))))
        }
        defer { database.repo.deliverLocalEvents() }
        try database.repo.update(changes, at: path, completion: completion)
    }

    /// Writes several deep paths below this location atomically.
    public func updateNodes(_ changes: [(Path, Node)], completion: @escaping (DatabaseError?) -> Void = { _ in }) throws(DatabaseError) {
        defer { database.repo.deliverLocalEvents() }
        try database.repo.update(changes, at: path, completion: completion)
    }

    /// Deletes the value.
    public func removeValue(completion: @escaping (DatabaseError?) -> Void = { _ in }) throws(DatabaseError) {
        defer { database.repo.deliverLocalEvents() }
        try database.repo.set(.empty, at: path, completion: completion)
    }

    /// Sets the priority of the existing value.
    /// Sets the priority of the value, as the SDKs do: a write of `path/.priority`, which the
    /// server applies to what it has (nothing happens where there is no value), so the client
    /// need not know the value (syncPointSpec "setPriority on a location with no cache").
    public func setPriority(_ priority: Priority?, completion: @escaping (DatabaseError?) -> Void = { _ in }) throws(DatabaseError) {
        if path.isEmpty { throw .invalidValue("the root has no priority", at: path) }
        defer { database.repo.deliverLocalEvents() }
        try database.repo.set(priority.map { Node($0.leafValue) } ?? .empty, at: path.child(.priority), completion: completion)
    }

    /// A new child with a push id; with a value, written at once.
    public func childByAutoId() -> Reference {
        Reference(database: database, path: path.child(ChildKey(unchecked: database.pushID())))
    }

    /// Runs a transaction: `update` gets the current value (empty when nothing is known yet)
    /// and returns the new one or aborts; it may run several times.
    public func runTransaction(
        applyLocally: Bool = true, _ update: @escaping (Node) -> TransactionUpdate,
        completion: @escaping (Result<TransactionResult, DatabaseError>) -> Void = { _ in }
    ) throws(DatabaseError) {
        let database = database
        let path = path
        defer { database.repo.deliverLocalEvents() }
        try database.repo.transaction(at: path, applyLocally: applyLocally, update: update) { result in
            completion(result.map { outcome in
                TransactionResult(
                    committed: outcome.committed,
                    snapshot: DataSnapshot(database: database, path: path, node: outcome.node, index: .priority),
                    attempts: outcome.attempts)
            })
        }
    }

    /// The operations the server performs at this location when the connection ends.
    public func onDisconnect() -> OnDisconnect { OnDisconnect(reference: self) }

    // MARK: Writing with async

    /// Replaces the value and waits for the server's answer.
    nonisolated(nonsending) public func set(_ value: JSONValue, priority: Priority? = nil) async throws(DatabaseError) {
        try await database.awaitCompletion { (done) throws(DatabaseError) in try setValue(value, priority: priority, completion: done) }
    }

    /// Writes several children or deep paths atomically and waits for the server's answer.
    nonisolated(nonsending) public func update(_ values: KeyValuePairs<String, JSONValue>) async throws(DatabaseError) {
        try await database.awaitCompletion { (done) throws(DatabaseError) in try updateChildValues(values, completion: done) }
    }

    /// Deletes the value and waits for the server's answer.
    nonisolated(nonsending) public func remove() async throws(DatabaseError) {
        try await database.awaitCompletion { (done) throws(DatabaseError) in try removeValue(completion: done) }
    }

    /// Writes `value` at a new push id and waits for the server's answer.
    nonisolated(nonsending) public func push(_ value: JSONValue) async throws(DatabaseError) -> Reference {
        let child = childByAutoId()
        try await child.set(value)
        return child
    }

    /// Runs a transaction and waits for its end.
    nonisolated(nonsending) public func transaction(
        applyLocally: Bool = true, _ update: @escaping (Node) -> TransactionUpdate
    ) async throws(DatabaseError) -> TransactionResult {
        try await database.waitFor { (done: @escaping (Result<TransactionResult, DatabaseError>) -> Void) throws(DatabaseError) in
            try runTransaction(applyLocally: applyLocally, update, completion: done)
        }
    }

    // MARK: Reading (the location's query)

    @discardableResult
    public func observe(
        _ type: EventType, cancelled: ((DatabaseError) -> Void)? = nil,
        _ callback: @escaping (DataSnapshot, String?) -> Void
    ) -> ListenerHandle {
        query.observe(type, cancelled: cancelled, callback)
    }

    /// Reads the location once (see ``Query/get(connectTimeout:)``).
    nonisolated(nonsending) public func get(connectTimeout: Int64? = nil) async throws(DatabaseError) -> DataSnapshot {
        try await query.get(connectTimeout: connectTimeout)
    }

    nonisolated(nonsending) public func once(_ type: EventType = .value) async throws(DatabaseError) -> (DataSnapshot, String?) {
        try await query.once(type)
    }

    public func removeObservers(_ type: EventType? = nil) { query.removeObservers(type) }

    public func keepSynced(_ on: Bool) throws(DatabaseError) { try query.keepSynced(on) }
}
