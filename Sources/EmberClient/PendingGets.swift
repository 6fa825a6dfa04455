import EmberCore

/// The `get`s of a client waiting for the server, and the request carrying each one on the
/// current connection.
struct PendingGets {
    private var gets: [GetRequestID: PendingGet] = [:]
    private var next = 1

    /// Adds a get waiting for a connection; returns its number.
    /// - Complexity: O(1) amortized.
    mutating func add(_ get: PendingGet) -> GetRequestID {
        let id = GetRequestID(rawValue: next)
        next += 1
        gets[id] = get
        return id
    }

    /// Records that get `id` went as request `requestID`.
    /// - Complexity: O(1).
    mutating func sent(_ id: GetRequestID, as requestID: Int) {
        gets[id]?.requestID = requestID
    }

    /// Whether get `id` is still waiting and not sent (its timer may finish it).
    /// - Complexity: O(1).
    func isWaitingForConnection(_ id: GetRequestID) -> Bool {
        gets[id].map { $0.requestID == nil } ?? false
    }

    /// Takes a get out to finish it (`nil` when it finished already).
    /// - Complexity: O(1).
    mutating func take(_ id: GetRequestID) -> PendingGet? {
        gets.removeValue(forKey: id)
    }

    /// The gets not sent on this connection, by number.
    /// - Complexity: O(n log n).
    var unsent: [(id: GetRequestID, get: PendingGet)] {
        gets.filter { $0.value.requestID == nil }.sorted { $0.key.rawValue < $1.key.rawValue }.map { ($0.key, $0.value) }
    }

    /// The connection went: the gets it carried are unsent again; returns them, by number.
    /// - Complexity: O(n log n).
    mutating func connectionLost() -> [(id: GetRequestID, get: PendingGet)] {
        let lost = gets.filter { $0.value.requestID != nil }.sorted { $0.key.rawValue < $1.key.rawValue }
        for (id, _) in lost { gets[id]?.requestID = nil }
        return lost.map { ($0.key, $0.value) }
    }
}
