import EmberCore
import EmberWire

/// The writes the server performs at a location when this client's connection ends, cleanly
/// or not (the SDKs' `OnDisconnect`). The server checks them when registered and again when
/// they run; each registration completes with the server's answer.
public struct OnDisconnect {
    public let reference: Reference

    private var repo: Repo { reference.database.repo }
    private var path: Path { reference.path }

    /// Sets the value when the connection ends.
    public func setValue(_ value: JSONValue, priority: Priority? = nil, completion: @escaping (DatabaseError?) -> Void = { _ in }) throws(DatabaseError) {
        var node = try Node(json: value, at: path)
        if let priority { node = node.withPriority(priority) }
        defer { repo.deliverLocalEvents() }
        try repo.onDisconnect(.put(node), at: path, completion: completion)
    }

    /// Deletes the value when the connection ends.
    public func removeValue(completion: @escaping (DatabaseError?) -> Void = { _ in }) throws(DatabaseError) {
        defer { repo.deliverLocalEvents() }
        try repo.onDisconnect(.put(.empty), at: path, completion: completion)
    }

    /// Writes several children or deep paths when the connection ends.
    public func updateChildValues(_ values: KeyValuePairs<String, JSONValue>, completion: @escaping (DatabaseError?) -> Void = { _ in }) throws(DatabaseError) {
        try updateChildValues(values.map { (key: $0.key, value: $0.value) }, completion: completion)
    }

    /// Writes several children or deep paths when the connection ends (members in order, as
    /// a parsed JSON object holds them).
    public func updateChildValues(_ values: [(key: String, value: JSONValue)], completion: @escaping (DatabaseError?) -> Void = { _ in }) throws(DatabaseError) {
        var changes: [WireChange] = []
        for (key, value) in values {
            let relative = try Path(validatingWriteTarget: key)
            changes.append(WireChange(relative, try Node(json: value, at: path.appending(relative))))
        }
        defer { repo.deliverLocalEvents() }
        try repo.onDisconnect(.merge(changes), at: path, completion: completion)
    }

    /// Forgets this client's operations at and below the location.
    public func cancel(completion: @escaping (DatabaseError?) -> Void = { _ in }) throws(DatabaseError) {
        defer { repo.deliverLocalEvents() }
        try repo.onDisconnect(.cancel, at: path, completion: completion)
    }

    nonisolated(nonsending) public func set(_ value: JSONValue, priority: Priority? = nil) async throws(DatabaseError) {
        try await reference.database.awaitCompletion { (done) throws(DatabaseError) in try setValue(value, priority: priority, completion: done) }
    }

    nonisolated(nonsending) public func remove() async throws(DatabaseError) {
        try await reference.database.awaitCompletion { (done) throws(DatabaseError) in try removeValue(completion: done) }
    }

    nonisolated(nonsending) public func update(_ values: KeyValuePairs<String, JSONValue>) async throws(DatabaseError) {
        try await reference.database.awaitCompletion { (done) throws(DatabaseError) in try updateChildValues(values, completion: done) }
    }

    nonisolated(nonsending) public func cancel() async throws(DatabaseError) {
        try await reference.database.awaitCompletion { (done) throws(DatabaseError) in try cancel(completion: done) }
    }
}
