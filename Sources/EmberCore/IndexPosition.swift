/// A point in a query's order: an index value and a key to break ties.
///
/// `startAt(v)` is the position `(v, .min)` (before every child whose value is `v`),
/// `endAt(v)` is `(v, .max)`, and `startAt(v, "k")` is `(v, .key("k"))`. Under key order the
/// value is the key itself, as a string.
public struct IndexPosition: Sendable, Hashable {
    /// The tie-breaking key of a position.
    public enum Key: Sendable, Hashable {
        /// Before every key.
        case min
        case key(ChildKey)
        /// After every key.
        case max
    }

    /// The index value: `nil` is `null`.
    public var value: LeafValue?
    public var key: Key

    public init(_ value: LeafValue?, _ key: Key) {
        self.value = value
        self.key = key
    }
}

/// One end of a query's range.
public enum RangeBound: Sendable, Hashable {
    /// Children at the position are in the range (`startAt`, `endAt`, `equalTo`).
    case including(IndexPosition)
    /// Children at the position are not (`startAfter`, `endBefore`).
    case excluding(IndexPosition)

    public var position: IndexPosition {
        switch self {
        case .including(let position), .excluding(let position): position
        }
    }

    public var isInclusive: Bool {
        if case .including = self { return true }
        return false
    }
}

/// How many children a query keeps, from which end.
public enum QueryLimit: Sendable, Hashable {
    case first(Int)
    case last(Int)

    public var count: Int {
        switch self {
        case .first(let count), .last(let count): count
        }
    }
}
