import EmberWire

/// The server's memory of recently answered keyed writes: a client that lost its connection
/// before hearing an answer sends the write again with the same key, and gets the first
/// answer instead of a second application (an increment applied twice, a transaction
/// re-run on its own result).
///
/// Bounded: the oldest answers are forgotten first; a client resends within moments of
/// reconnecting, far inside the capacity.
///
/// Keys are told apart by their UTF-8 bytes: a dictionary of `String`s takes canonically
/// equivalent keys (`"\u{212A}1"`, KELVIN SIGN, and `"K1"`) for one, so that a write under one
/// was answered as the other and never applied.
struct AnsweredWrites {
    private let capacity: Int
    private var statuses: [[UInt8]: AckStatus] = [:]
    /// Keys in the order recorded, from `start`.
    private var order: [[UInt8]] = []
    private var start = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The answer given to `key`, if remembered.
    /// - Complexity: O(1) on average.
    func status(for key: String) -> AckStatus? { statuses[Array(key.utf8)] }

    /// Remembers the answer to `key`, forgetting the oldest beyond the capacity.
    /// - Complexity: amortized O(1).
    mutating func record(_ status: AckStatus, for text: String) {
        let key = Array(text.utf8)
        if statuses.isEmpty && order.isEmpty {
            // Room for every remembered answer at once: growing the table rehashes each key
            // again at every doubling.
            statuses.reserveCapacity(capacity)
            order.reserveCapacity(capacity)
        }
        if statuses.updateValue(status, forKey: key) == nil { order.append(key) }
        while statuses.count > capacity {
            statuses[order[start]] = nil
            start += 1
        }
        if start > capacity {
            order.removeFirst(start)
            start = 0
        }
    }
}
