/// A child's position in priority order: its priority (none first), then its key.
public struct PriorityKey: TreeKey, Hashable {
    public var priority: Priority?
    public var key: ChildKey

    public init(_ priority: Priority?, _ key: ChildKey) {
        self.priority = priority
        self.key = key
    }

    public static func compare(_ lhs: PriorityKey, _ rhs: PriorityKey) -> Int {
        let order = Priority.compare(lhs.priority, rhs.priority)
        return order != 0 ? order : ChildKey.compare(lhs.key, rhs.key)
    }
}
