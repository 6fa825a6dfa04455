/// The engine's time-ordered queue of messages and timers: a binary min-heap by (time, order of
/// scheduling), so that work due at the same time runs in the order it was scheduled.
struct WorkQueue {
    /// One scheduled piece of work.
    struct Item {
        let time: Int64
        let sequence: Int
        let kind: WorkKind
        let action: () -> Void

        func isBefore(_ other: Item) -> Bool {
            time != other.time ? time < other.time : sequence < other.sequence
        }
    }

    /// The heap.
    private var heap: [Item] = []
    private var sequence = 0
    /// How many waiting items are messages.
    private(set) var messages = 0

    /// How many items wait, due or not.
    var count: Int { heap.count }

    /// When the earliest item is due.
    var nextTime: Int64? { heap.first?.time }

    /// Adds `action`, due at `time`.
    /// - Complexity: O(log m) for m waiting items.
    mutating func push(at time: Int64, kind: WorkKind, _ action: @escaping () -> Void) {
        if kind == .message { messages += 1 }
        heap.append(Item(time: time, sequence: sequence, kind: kind, action: action))
        sequence += 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].isBefore(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest item if it is due at `now`.
    /// - Complexity: O(log m) for m waiting items.
    mutating func popDue(now: Int64) -> Item? {
        guard let first = heap.first, first.time <= now else { return nil }
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
        if first.kind == .message { messages -= 1 }
        return first
    }
}
