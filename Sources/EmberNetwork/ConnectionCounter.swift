import Synchronization

/// How many connections (WebSockets and event streams) are open, against the limit.
final class ConnectionCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// Counts one more connection, unless `limit` are open.
    /// - Returns: whether it was counted.
    func open(limit: Int) -> Bool {
        if count.add(1, ordering: .relaxed).newValue > limit {
            count.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    /// Counts one connection fewer.
    func close() {
        count.subtract(1, ordering: .relaxed)
    }

    var current: Int { count.load(ordering: .relaxed) }
}
