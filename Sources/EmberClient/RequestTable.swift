/// The requests sent on the current connection and not answered yet, by request number.
///
/// Numbers keep growing across connections, so an answer meant for an earlier connection can
/// never be taken for one of this connection.
struct RequestTable {
    private var pending: [Int: PendingRequest] = [:]
    private var next = 1

    /// A new request number.
    /// - Complexity: O(1).
    mutating func newID() -> Int {
        defer { next += 1 }
        return next
    }

    /// Records that request `id`, sent now, means `request`.
    /// - Complexity: O(1) amortized.
    mutating func sent(_ id: Int, as request: PendingRequest) {
        pending[id] = request
    }

    /// Takes the request an answer is for (`nil` when it is unknown or was answered).
    /// - Complexity: O(1).
    mutating func take(_ id: Int) -> PendingRequest? {
        pending.removeValue(forKey: id)
    }

    /// Forgets every request (the connection went) and returns them in the order sent.
    /// - Complexity: O(n log n).
    mutating func takeAll() -> [PendingRequest] {
        defer { pending.removeAll() }
        return pending.sorted { $0.key < $1.key }.map(\.value)
    }
}
