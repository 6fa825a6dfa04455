import DequeModule
import EmberSync

/// The writes of a client not yet answered by the server, oldest first, each marked once it is
/// sent on the current connection.
///
/// A write joins the queue when it is made and leaves it when the server answers it; on every
/// new connection the whole queue is sent again, in order.
struct WriteQueue {
    /// The writes, each with its mark (``OutgoingWrite/isSent``): a table of the writes sent,
    /// by id, cost every write an insertion and a removal (hashing its id each time).
    private var writes: Deque<OutgoingWrite> = []

    /// The queued writes, oldest first.
    var all: Deque<OutgoingWrite> { writes }

    /// How many writes wait for the server's answer.
    var count: Int { writes.count }

    /// Adds a write at the end of the queue.
    /// - Complexity: O(1) amortized.
    mutating func append(_ write: consuming OutgoingWrite) {
        writes.append(write)
    }

    /// Records that `id` went to the server on this connection.
    /// - Complexity: O(1) for the newest write (a write is sent as it is made, or with the
    ///   others after it on a new connection); O(n) at worst.
    mutating func sent(_ id: WriteID) {
        guard let index = writes.lastIndex(where: { $0.id == id }) else { return }
        writes[index].isSent = true
    }

    /// Takes an answered write out of the queue (`nil` when it is not there).
    /// - Complexity: O(n) in the queue's length (the answered write is nearly always first).
    mutating func remove(_ id: WriteID) -> OutgoingWrite? {
        guard let index = writes.firstIndex(where: { $0.id == id }) else { return nil }
        return writes.remove(at: index)
    }

    /// The connection went: no write is in flight any more (all are sent again on the next).
    /// - Complexity: O(n).
    mutating func connectionLost() {
        for index in writes.indices { writes[index].isSent = false }
    }
}
