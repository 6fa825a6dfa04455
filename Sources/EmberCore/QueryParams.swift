/// What a query asks for: one order, an optional range, an optional limit.
///
/// Build queries with the validating methods, each of which returns a new value:
///
/// ```swift
/// let top = try QueryParams().orderedBy(.child("score")).limitedToLast(10)
/// let page = try QueryParams().orderedBy(.key).startingAfter(.string("m")).limitedToFirst(20)
/// ```
///
/// A second order, a second start or end, a limit that is not a positive integer, or bounds
/// that do not fit the order are errors (``DatabaseError`` `invalid_query`) that say which call
/// is wrong and why.
public struct QueryParams: Sendable, Hashable {
    /// The order set with `orderBy…`, or `nil` for the default (priority) order.
    public private(set) var orderBy: Index?
    /// Where the range starts, if it is bounded below.
    public private(set) var start: RangeBound?
    /// Where the range ends, if it is bounded above.
    public private(set) var end: RangeBound?
    /// How many children the query keeps.
    public private(set) var limit: QueryLimit?

    /// The default query: every child, in priority order.
    public init() {}

    /// The default query.
    public static let `default` = QueryParams()

    /// Params with these parts, checked: the bounds must fit the order and the limit be
    /// positive (what a stored query read back is checked against).
    /// - Throws: `invalid_query` as the builder calls would.
    public init(orderBy: Index?, start: RangeBound?, end: RangeBound?, limit: QueryLimit?) throws(DatabaseError) {
        self.orderBy = orderBy
        self.start = start
        self.end = end
        self.limit = limit
        if let limit, limit.count <= 0 { throw .invalidQuery("a limit must be a positive integer, not \(limit.count)") }
        try validateBounds(.decoded)
    }

    /// The order in effect.
    public var index: Index { orderBy ?? .priority }

    /// Whether the query returns every child (no range, no limit). Such a query is not
    /// "filtered": it needs no tag on the wire and its results are the whole location.
    public var loadsAllData: Bool { start == nil && end == nil && limit == nil }

    /// Whether this is the default query (loads all data, in priority order).
    public var isDefault: Bool { loadsAllData && index == .priority }

    // MARK: Building

    /// Sets the order.
    /// - Throws: when an order is already set, when a child path names a special key, or when
    ///   bounds already given do not fit the new order.
    public func orderedBy(_ index: Index) throws(DatabaseError) -> QueryParams {
        if let orderBy {
            throw .invalidQuery("the query is already ordered by \(orderBy); a query has one order")
        }
        if case .child(let path) = index {
            if path.isEmpty { throw .invalidQuery("orderByChild needs a child path") }
            for key in path.keys where key.isMetadata || ["$key", "$value", "$priority"].contains(key.name) {
                throw .invalidQuery("orderByChild cannot order by \"\(key.name)\"; use orderByKey, orderByValue or orderByPriority")
            }
        }
        var copy = self
        copy.orderBy = index
        try copy.validateBounds(.call)
        return copy
    }

    /// Starts the range at `value` (and `key` among children whose value is `value`), inclusive.
    public func startingAt(_ value: LeafValue?, key: ChildKey? = nil) throws(DatabaseError) -> QueryParams {
        try settingStart(.including(IndexPosition(value, key.map { .key($0) } ?? .min)), call: "startAt")
    }

    /// Starts the range after `value` (and after `key` among children whose value is `value`).
    public func startingAfter(_ value: LeafValue?, key: ChildKey? = nil) throws(DatabaseError) -> QueryParams {
        try settingStart(.excluding(IndexPosition(value, key.map { .key($0) } ?? .max)), call: "startAfter")
    }

    /// Ends the range at `value` (and `key` among children whose value is `value`), inclusive.
    public func endingAt(_ value: LeafValue?, key: ChildKey? = nil) throws(DatabaseError) -> QueryParams {
        try settingEnd(.including(IndexPosition(value, key.map { .key($0) } ?? .max)), call: "endAt")
    }

    /// Ends the range before `value` (and before `key` among children whose value is `value`).
    public func endingBefore(_ value: LeafValue?, key: ChildKey? = nil) throws(DatabaseError) -> QueryParams {
        try settingEnd(.excluding(IndexPosition(value, key.map { .key($0) } ?? .min)), call: "endBefore")
    }

    /// Keeps only children whose value is `value` (and whose key is `key`, when given).
    public func equalTo(_ value: LeafValue?, key: ChildKey? = nil) throws(DatabaseError) -> QueryParams {
        if start != nil || end != nil {
            throw .invalidQuery("equalTo cannot be combined with startAt, startAfter, endAt or endBefore")
        }
        return try startingAt(value, key: key).endingAt(value, key: key)
    }

    /// Keeps the first `count` children of the range.
    public func limitedToFirst(_ count: Int) throws(DatabaseError) -> QueryParams {
        try settingLimit(.first(count), call: "limitToFirst")
    }

    /// Keeps the last `count` children of the range.
    public func limitedToLast(_ count: Int) throws(DatabaseError) -> QueryParams {
        try settingLimit(.last(count), call: "limitToLast")
    }

    private func settingStart(_ bound: RangeBound, call: String) throws(DatabaseError) -> QueryParams {
        if start != nil {
            throw .invalidQuery("\(call): the start is already set (by startAt, startAfter or equalTo)")
        }
        var copy = self
        copy.start = bound
        try copy.validateBounds(.call)
        return copy
    }

    private func settingEnd(_ bound: RangeBound, call: String) throws(DatabaseError) -> QueryParams {
        if end != nil {
            throw .invalidQuery("\(call): the end is already set (by endAt, endBefore or equalTo)")
        }
        var copy = self
        copy.end = bound
        try copy.validateBounds(.call)
        return copy
    }

    private func settingLimit(_ limit: QueryLimit, call: String) throws(DatabaseError) -> QueryParams {
        if self.limit != nil {
            throw .invalidQuery("\(call): the limit is already set (by limitToFirst or limitToLast)")
        }
        guard limit.count > 0 else {
            throw .invalidQuery("\(call) takes a positive integer, not \(limit.count)")
        }
        var copy = self
        copy.limit = limit
        return copy
    }

    /// Where bounds being checked come from.
    private enum BoundOrigin {
        /// A builder call (startAt, endBefore…): under key order the bound must be a string.
        case call
        /// A query read from the wire or from storage: under key order a bound without a value
        /// is the position before or after every key (the Web SDK's `[MIN_NAME]`, `[MAX_NAME]`).
        case decoded
    }

    /// Checks that the bounds fit the order.
    private func validateBounds(_ origin: BoundOrigin) throws(DatabaseError) {
        for bound in [start, end].compactMap({ $0 }) {
            let position = bound.position
            if case .deferred? = position.value {
                throw .invalidQuery("a query bound cannot be a server value")
            }
            switch index {
            case .key:
                if case .key = position.key {
                    throw .invalidQuery("when ordering by key, startAt, startAfter, endAt, endBefore and equalTo take one argument")
                }
                // A string: a position among the keys, compared, not written (the Web SDK checks
                // no more: its endBefore sends a key's 786-character predecessor).
                guard case .string? = position.value else {
                    if position.value == nil, origin == .decoded { break }
                    throw .invalidQuery("when ordering by key, startAt, startAfter, endAt, endBefore and equalTo take a string key")
                }
            case .priority:
                if case .bool? = position.value {
                    throw .invalidQuery("when ordering by priority, the bound must be a valid priority (null, a number or a string)")
                }
            case .value, .child:
                break
            }
        }
    }
}

extension QueryParams: CustomStringConvertible {
    /// The query in the shell's words: `orderBy child score startAt 5 limitToLast 10`.
    public var description: String {
        var words: [String] = []
        if let orderBy { words.append("orderBy \(orderBy)") }
        func describe(_ name: String, _ position: IndexPosition) -> String {
            var text = "\(name) " + (position.value.map(\.description) ?? "null")
            if case .key(let key) = position.key { text += " \(key)" }
            return text
        }
        if case .including(let low)? = start, case .including(let high)? = end, low.value == high.value,
            low.key == high.key || (low.key == .min && high.key == .max)
        {
            words.append(describe("equalTo", low))
        } else {
            switch start {
            case .including(let position)?: words.append(describe("startAt", position))
            case .excluding(let position)?: words.append(describe("startAfter", position))
            case nil: break
            }
            switch end {
            case .including(let position)?: words.append(describe("endAt", position))
            case .excluding(let position)?: words.append(describe("endBefore", position))
            case nil: break
            }
        }
        switch limit {
        case .first(let count)?: words.append("limitToFirst \(count)")
        case .last(let count)?: words.append("limitToLast \(count)")
        case nil: break
        }
        return words.isEmpty ? "(all)" : words.joined(separator: " ")
    }
}
