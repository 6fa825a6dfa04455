import DequeModule

/// The engine's time-ordered queue of messages and timers, ordered by (time, order of
/// scheduling), so that work due at the same time runs in the order it was scheduled.
///
/// Two parts hold the items: a first-in-first-out run of messages whose times never decrease
/// in the order they were scheduled (messages over a link of fixed latency, the common case:
/// O(1) each way), and a binary min-heap for everything else (timers, and a message due
/// before the run's last). Each part is in (time, sequence) order, so the earliest item is the
/// earlier of their two heads.
struct WorkQueue {
    /// One scheduled piece of work.
    struct Item {
        let time: Int64
        let sequence: Int
        let kind: WorkKind
        let action: () -> Void
    }

    /// When an item is due and its place among items due at the same time: the heap's order.
    /// Kept apart from the items so that sifting compares plain integers, with no reference
    /// counting of the actions.
    private struct Key {
        let time: Int64
        let sequence: Int

        func isBefore(_ other: Key) -> Bool {
            time != other.time ? time < other.time : sequence < other.sequence
        }
    }

    /// The heap's keys; `items[i]` is the item of `keys[i]`.
    private var keys: [Key] = []
    /// The heap's items, moved as their keys move.
    private var items: [Item] = []
    /// Messages in (time, sequence) order, outside the heap.
    private var run = Deque<Item>()
    private var sequence = 0
    /// How many waiting items are messages.
    private(set) var messages = 0

    /// How many items wait, due or not.
    var count: Int { keys.count + run.count }

    /// When the earliest item is due.
    var nextTime: Int64? {
        switch (keys.first?.time, run.first?.time) {
        case (let heap?, let run?): min(heap, run)
        case (let heap, let run): heap ?? run
        }
    }

    /// Adds `action`, due at `time`.
    /// - Complexity: O(log m) for m waiting items.
    mutating func push(at time: Int64, kind: WorkKind, _ action: @escaping () -> Void) {
        let item = Item(time: time, sequence: sequence, kind: kind, action: action)
        sequence += 1
        if kind == .message {
            messages += 1
            if time >= run.last?.time ?? .min {
                run.append(item)
                return
            }
        }
        let key = Key(time: item.time, sequence: item.sequence)
        keys.append(key)
        items.append(item)
        var child = keys.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard key.isBefore(keys[parent]) else { break }
            keys.swapAt(child, parent)
            items.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest item if it is due at `now`.
    /// - Complexity: O(1) for a message of the run, O(log m) for m items in the heap.
    mutating func popDue(now: Int64) -> Item? {
        if let head = run.first, head.time <= now,
            keys.first.map({ Key(time: head.time, sequence: head.sequence).isBefore($0) }) ?? true
        {
            messages -= 1
            return run.removeFirst()
        }
        return popHeap(now: now)
    }

    /// Removes and returns the heap's earliest item if it is due at `now`.
    private mutating func popHeap(now: Int64) -> Item? {
        guard let firstKey = keys.first, firstKey.time <= now else { return nil }
        keys.swapAt(0, keys.count - 1)
        items.swapAt(0, items.count - 1)
        keys.removeLast()
        let first = items.removeLast()
        let count = keys.count
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < count && keys[left].isBefore(keys[smallest]) { smallest = left }
            if right < count && keys[right].isBefore(keys[smallest]) { smallest = right }
            if smallest == parent { break }
            keys.swapAt(parent, smallest)
            items.swapAt(parent, smallest)
            parent = smallest
        }
        if first.kind == .message { messages -= 1 }
        return first
    }
}
