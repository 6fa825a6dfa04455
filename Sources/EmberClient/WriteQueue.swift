import DequeModule
import EmberSync

/// The writes of a client not yet answered by the server, oldest first, and the request that
/// carries each one on the current connection.
///
/// A write joins the queue when it is made and leaves it when the server answers it; on every
/// new connection the whole queue is sent again, in order.
struct WriteQueue {
    private var writes: Deque<OutgoingWrite> = []
    /// The request carrying each sent write on the current connection.
    private var requests: [WriteID: Int] = [:]

    /// The queued writes, oldest first.
    var all: Deque<OutgoingWrite> { writes }

    /// How many writes wait for the server's answer.
    var count: Int { writes.count }

    /// Adds a write at the end of the queue.
    /// - Complexity: O(1) amortized.
    mutating func append(_ write: OutgoingWrite) {
        writes.append(write)
    }

    /// Records that `id` went as request `requestID` on this connection.
    /// - Complexity: O(1) amortized.
    mutating func sent(_ id: WriteID, as requestID: Int) {
        requests[id] = requestID
    }

    /// Whether `id` was sent on this connection.
    /// - Complexity: O(1).
    func isSent(_ id: WriteID) -> Bool { requests[id] != nil }

    /// Takes an answered write out of the queue (`nil` when it is not there).
    /// - Complexity: O(n) in the queue's length (the answered write is nearly always first).
    mutating func remove(_ id: WriteID) -> OutgoingWrite? {
        guard let index = writes.firstIndex(where: { $0.id == id }) else { return nil }
        requests[id] = nil
        return writes.remove(at: index)
    }

    /// The connection went: no write is in flight any more (all are sent again on the next).
    /// - Complexity: O(n).
    mutating func connectionLost() {
        requests.removeAll()
    }
}
