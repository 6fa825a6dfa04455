import EmberCore

/// The requests sent on the current connection and not answered yet, by request number.
///
/// Numbers keep growing across connections, so an answer meant for an earlier connection can
/// never be taken for one of this connection. Numbers are handed out in order and the server
/// answers a connection's requests about in that order: the table is a window of slots
/// (``NumberedSlots``), and a request a server never answers does not hold it open.
struct RequestTable {
    private var pending = NumberedSlots<PendingRequest>()
    private var next = 1

    /// How many requests are unanswered.
    var count: Int { pending.count }

    /// How many slots the table's window spans.
    var windowLength: Int { pending.windowLength }

    /// A new request number.
    /// - Complexity: O(1).
    mutating func newID() -> Int {
        defer { next += 1 }
        return next
    }

    /// Records that request `id`, sent now, means `request`.
    /// - Complexity: O(1) amortized.
    mutating func sent(_ id: Int, as request: PendingRequest) {
        pending.insert(request, at: id)
    }

    /// Takes the request an answer is for (`nil` when it is unknown or was answered).
    /// - Complexity: O(1) amortized.
    mutating func take(_ id: Int) -> PendingRequest? {
        pending.remove(id)
    }

    /// Forgets every request (the connection went) and returns them in the order sent.
    /// - Complexity: O(n) for the window's slots (plus sorting any stragglers).
    mutating func takeAll() -> [PendingRequest] {
        pending.removeAll()
    }
}
