import DequeModule

/// The requests sent on the current connection and not answered yet, by request number.
///
/// Numbers keep growing across connections, so an answer meant for an earlier connection can
/// never be taken for one of this connection.
///
/// Numbers are handed out in order and the server answers a connection's requests about in the
/// order sent, so the table is a window of slots from the oldest request still unanswered on,
/// found by subtraction (a dictionary hashed every number in and out: about 600 instructions of
/// each write, callgrind). A request left unanswered far behind the others (a server that never
/// answers one) does not hold the window open: once the window is mostly empty, its oldest
/// requests move to a small table of stragglers, so memory follows what is unanswered, not
/// how many requests went by since.
struct RequestTable {
    /// The requests numbered from `first` on, at `number - first`; `nil` once answered, or for
    /// a number handed out and not sent (no connection).
    private var window: Deque<PendingRequest?> = []
    /// The number of the window's first slot.
    private var first = 1
    /// How many slots of the window hold a request.
    private var live = 0
    /// Unanswered requests older than the window (see ``evictSparseFront()``).
    private var stragglers: [Int: PendingRequest] = [:]
    private var next = 1

    /// The window's length below which it is never thinned.
    static let thinningFloor = 64

    /// How many requests are unanswered.
    var count: Int { live + stragglers.count }

    /// How many slots the window spans (answered ones between unanswered included).
    var windowLength: Int { window.count }

    /// A new request number.
    /// - Complexity: O(1).
    mutating func newID() -> Int {
        defer { next += 1 }
        return next
    }

    /// Records that request `id`, sent now, means `request`.
    /// - Complexity: O(1) amortized (a gap of numbers handed out and not sent is filled).
    mutating func sent(_ id: Int, as request: PendingRequest) {
        if window.isEmpty { first = id }
        guard id >= first else {
            // Never sent before a later one in practice; kept all the same.
            stragglers[id] = request
            return
        }
        let offset = id - first
        if offset < window.count {
            if window[offset] == nil { live += 1 }
            window[offset] = request
        } else {
            while window.count < offset { window.append(nil) }
            window.append(request)
            live += 1
        }
        if window.count > Self.thinningFloor, live * 2 < window.count { evictSparseFront() }
    }

    /// Takes the request an answer is for (`nil` when it is unknown or was answered).
    /// - Complexity: O(1) amortized.
    mutating func take(_ id: Int) -> PendingRequest? {
        let offset = id - first
        if offset >= 0, offset < window.count {
            guard let request = window[offset] else { return nil }
            window[offset] = nil
            live -= 1
            if offset == 0 { dropAnsweredFront() }
            return request
        }
        return stragglers.isEmpty ? nil : stragglers.removeValue(forKey: id)
    }

    /// Forgets every request (the connection went) and returns them in the order sent.
    /// - Complexity: O(n + s log s) for the window's n slots and s stragglers.
    mutating func takeAll() -> [PendingRequest] {
        var all = stragglers.sorted { $0.key < $1.key }.map(\.value)
        all.reserveCapacity(all.count + live)
        for case let request? in window { all.append(request) }
        window.removeAll()
        stragglers.removeAll()
        live = 0
        return all
    }

    /// Drops the answered slots at the window's front.
    /// - Complexity: O(k) for the k slots dropped.
    private mutating func dropAnsweredFront() {
        while let slot = window.first, slot == nil {
            window.removeFirst()
            first += 1
        }
    }

    /// The window is more than half empty: its oldest requests (held up behind answers that
    /// came long since) move to the stragglers until it is at least half full again.
    /// - Complexity: O(k) amortized for the k slots passed.
    private mutating func evictSparseFront() {
        while window.count > Self.thinningFloor, live * 2 < window.count, let slot = window.first {
            if let request = slot {
                stragglers[first] = request
                live -= 1
            }
            window.removeFirst()
            first += 1
        }
    }
}
