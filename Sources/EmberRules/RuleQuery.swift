import EmberCore

/// The `query` variable of a `.read` rule: how the read is ordered and bounded. A plain read
/// (no order given) is ordered by key, as Firebase's server sees it (targaryen's fixtures:
/// `query.orderByKey == true` holds for a read without a query).
public struct RuleQuery: Sendable, Equatable {
    public var orderByKey = true
    public var orderByValue = false
    public var orderByPriority = false
    /// The child path ordered by, or null.
    public var orderByChild: RuleValue = .null
    public var startAt: RuleValue = .null
    public var endAt: RuleValue = .null
    public var equalTo: RuleValue = .null
    public var limitToFirst: RuleValue = .null
    public var limitToLast: RuleValue = .null

    /// A plain read: no order, no bounds.
    public init() {}

    /// The variables of a read with `params`.
    public init(_ params: QueryParams) {
        orderByKey = false
        switch params.orderBy {
        case .key?, nil: orderByKey = true
        case .value?: orderByValue = true
        case .priority?: orderByPriority = true
        case .child(let path)?: orderByChild = .string(path.keys.map(\.name).joined(separator: "/"))
        }
        // equalTo(v) is a range from v to v (whatever the keys bounding it).
        if let start = params.start, let end = params.end, start.isInclusive, end.isInclusive,
            RuleValue(start.position.value) == RuleValue(end.position.value)
        {
            equalTo = RuleValue(start.position.value)
        } else {
            startAt = params.start.map { RuleValue($0.position.value) } ?? .null
            endAt = params.end.map { RuleValue($0.position.value) } ?? .null
        }
        switch params.limit {
        case .first(let count)?: limitToFirst = .number(Double(count))
        case .last(let count)?: limitToLast = .number(Double(count))
        case nil: break
        }
    }

    /// The value of the property `name`.
    func property(_ name: String) -> RuleValue? {
        switch name {
        case "orderByKey": .boolean(orderByKey)
        case "orderByValue": .boolean(orderByValue)
        case "orderByPriority": .boolean(orderByPriority)
        case "orderByChild": orderByChild
        case "startAt": startAt
        case "endAt": endAt
        case "equalTo": equalTo
        case "limitToFirst": limitToFirst
        case "limitToLast": limitToLast
        default: nil
        }
    }
}
