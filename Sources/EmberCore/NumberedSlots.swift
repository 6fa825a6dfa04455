import DequeModule

/// Values kept under numbers that are handed out in increasing order and mostly given back in
/// that order: a client's requests in flight, a client store's queued writes by row.
///
/// The values sit in a window of slots from the oldest number still held on, found by
/// subtraction: a dictionary hashed every number in and out (about 600 instructions of each
/// write for a client's requests, 3,600 for a store's queued locations keyed by path,
/// callgrind). A value left far behind the others (a request a server never answers) does not
/// hold the window open: once the window is more than half empty, its oldest values move to a
/// small table of stragglers, so memory follows what is held, not how many numbers went by.
public struct NumberedSlots<Element> {
    /// The values numbered from `first` on, at `number - first`; `nil` for a number given
    /// back, or never taken.
    private var window: Deque<Element?> = []
    /// The number of the window's first slot.
    private var first = 0
    /// How many slots of the window hold a value.
    private var live = 0
    /// Values older than the window (see ``thinFront()``).
    private var stragglers: [Int: Element] = [:]

    /// The window's length below which it is never thinned.
    public static var thinningFloor: Int { 64 }

    /// No values.
    public init() {}

    /// How many values are held.
    /// - Complexity: O(1).
    public var count: Int { live + stragglers.count }

    /// Whether no value is held.
    /// - Complexity: O(1).
    public var isEmpty: Bool { count == 0 }

    /// How many slots the window spans (empty ones between held ones included).
    /// - Complexity: O(1).
    public var windowLength: Int { window.count }

    /// The value under `number`, if one is held.
    /// - Complexity: O(1) on average.
    public subscript(number: Int) -> Element? {
        let offset = number - first
        if offset >= 0, offset < window.count { return window[offset] }
        return stragglers.isEmpty ? nil : stragglers[number]
    }

    /// Holds `element` under `number`, replacing what was held there.
    /// - Complexity: O(1) amortized, plus the slots of a gap of numbers skipped.
    public mutating func insert(_ element: Element, at number: Int) {
        if window.isEmpty { first = number }
        guard number >= first else {
            // Older than the window: rare (numbers are handed out in order).
            stragglers[number] = element
            return
        }
        let offset = number - first
        if offset < window.count {
            if window[offset] == nil { live += 1 }
            window[offset] = element
        } else {
            while window.count < offset { window.append(nil) }
            window.append(element)
            live += 1
        }
        if window.count > Self.thinningFloor, live * 2 < window.count { thinFront() }
    }

    /// Gives back `number`: the value held under it, if any.
    /// - Complexity: O(1) amortized.
    @discardableResult
    public mutating func remove(_ number: Int) -> Element? {
        let offset = number - first
        if offset >= 0, offset < window.count {
            guard let element = window[offset] else { return nil }
            window[offset] = nil
            live -= 1
            if offset == 0 { dropEmptyFront() }
            return element
        }
        return stragglers.isEmpty ? nil : stragglers.removeValue(forKey: number)
    }

    /// The values, in the order of their numbers.
    /// - Complexity: O(n + s log s) for the window's n slots and s stragglers.
    public var values: [Element] {
        var all: [Element] = []
        all.reserveCapacity(count)
        forEach { _, element in all.append(element) }
        return all
    }

    /// The numbers held, in order.
    /// - Complexity: O(n + s log s) for the window's n slots and s stragglers.
    public var numbers: [Int] {
        var all: [Int] = []
        all.reserveCapacity(count)
        forEach { number, _ in all.append(number) }
        return all
    }

    /// Calls `body` with each number held and its value, in the order of the numbers.
    /// - Complexity: O(n + s log s) for the window's n slots and s stragglers.
    public func forEach(_ body: (Int, Element) throws -> Void) rethrows {
        if !stragglers.isEmpty {
            for (number, element) in stragglers.sorted(by: { $0.key < $1.key }) { try body(number, element) }
        }
        for (offset, slot) in window.enumerated() {
            if let element = slot { try body(first + offset, element) }
        }
    }

    /// Gives back every number: the values, in the order of their numbers.
    /// - Complexity: O(n + s log s) for the window's n slots and s stragglers.
    public mutating func removeAll() -> [Element] {
        defer {
            window.removeAll()
            stragglers.removeAll()
            live = 0
        }
        return values
    }

    /// Drops the empty slots at the window's front.
    /// - Complexity: O(k) for the k slots dropped.
    private mutating func dropEmptyFront() {
        while let slot = window.first, slot == nil {
            window.removeFirst()
            first += 1
        }
    }

    /// The window is more than half empty: its oldest values (held up behind numbers given back
    /// long since) move to the stragglers until it is at least half full again.
    /// - Complexity: O(k) amortized for the k slots passed.
    private mutating func thinFront() {
        while window.count > Self.thinningFloor, live * 2 < window.count, let slot = window.first {
            if let element = slot {
                stragglers[first] = element
                live -= 1
            }
            window.removeFirst()
            first += 1
        }
    }
}

extension NumberedSlots: Sendable where Element: Sendable {}
