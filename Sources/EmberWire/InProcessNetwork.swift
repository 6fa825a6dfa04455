import EmberCore

/// Joins clients to the server inside one process the way a network would: every message is
/// queued and arrives later, in order, when the network is stepped.
///
/// It is also the engine's timer queue: reconnection back-off and disconnect timeouts are
/// deliveries like messages, so one time-ordered queue decides everything that happens next.
///
/// Nothing is a direct call from client to server. The owner drives delivery: ``step()``
/// delivers one due message, ``deliverDue()`` everything due now (including what those
/// deliveries send in turn). Time comes from the injected clock, so with a manual clock a test
/// decides exactly when latency and timeouts elapse. Confined to the engine: not thread-safe.
public final class InProcessNetwork {
    /// A scheduled delivery.
    private struct Delivery {
        let time: Int64
        let sequence: Int
        /// A message (or a connection's end) travelling, rather than a timer.
        let isMessage: Bool
        let action: () -> Void

        func isBefore(_ other: Delivery) -> Bool {
            time != other.time ? time < other.time : sequence < other.sequence
        }
    }

    private let clock: any DatabaseClock
    /// A binary min-heap by (time, sequence). Its accesses skip the runtime's dynamic
    /// exclusivity checks: they never overlap (a delivery runs only after it is popped), and
    /// every message passes through here twice.
    @exclusivity(unchecked) private var heap: [Delivery] = []
    @exclusivity(unchecked) private var sequence = 0
    /// How many waiting deliveries are messages.
    public private(set) var messagesInFlight = 0

    public init(clock: any DatabaseClock) {
        self.clock = clock
    }

    /// The network's time, in milliseconds.
    public var now: Int64 { clock.now() }

    /// Opens a connection.
    /// - Parameters:
    ///   - latency: how long each message takes, in milliseconds.
    ///   - silentDropTimeout: how long the server takes to notice a silent drop, in milliseconds.
    public func connect(latency: Int64 = 0, silentDropTimeout: Int64 = 60_000) -> InProcessLink {
        InProcessLink(network: self, latency: latency, silentDropTimeout: silentDropTimeout)
    }

    /// How many deliveries are waiting, due or not.
    public var pendingCount: Int { heap.count }

    /// When the next delivery is due, if any is waiting.
    public var nextDeliveryTime: Int64? { heap.first?.time }

    /// Delivers the earliest delivery that is due.
    /// - Returns: whether one was delivered.
    /// - Complexity: O(log m) for m waiting deliveries.
    @discardableResult
    public func step() -> Bool {
        guard let first = heap.first, first.time <= now else { return false }
        let delivery = popFirst()
        if delivery.isMessage { messagesInFlight -= 1 }
        delivery.action()
        return true
    }

    /// Delivers everything due now, including what those deliveries cause.
    /// - Returns: how many deliveries were made.
    @discardableResult
    public func deliverDue() -> Int {
        var count = 0
        while step() { count += 1 }
        return count
    }

    /// Schedules a timer: `action` runs at `time` (after everything scheduled earlier for the
    /// same time), when the network is stepped.
    /// - Complexity: O(log m) for m waiting deliveries.
    public func schedule(at time: Int64, _ action: @escaping () -> Void) {
        enqueue(Delivery(time: time, sequence: sequence, isMessage: false, action: action))
    }

    /// Schedules the arrival of a message (or of the end of a connection) at `time`.
    func scheduleMessage(at time: Int64, _ action: @escaping () -> Void) {
        messagesInFlight += 1
        enqueue(Delivery(time: time, sequence: sequence, isMessage: true, action: action))
    }

    private func enqueue(_ delivery: Delivery) {
        heap.append(delivery)
        sequence += 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].isBefore(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func popFirst() -> Delivery {
        let first = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count && heap[left].isBefore(heap[smallest]) { smallest = left }
                if right < heap.count && heap[right].isBefore(heap[smallest]) { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first
    }
}
