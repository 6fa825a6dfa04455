/// The order of a query: by priority (the default), key, value, or the value at a child path.
///
/// Every order breaks ties by key. Values compare as `null` < `false` < `true` < numbers <
/// strings < objects (any two objects tie); priorities as none < numbers < strings.
public enum Index: Sendable, Hashable {
    case priority
    case key
    case value
    /// The value at a path below each child (`orderByChild("a/b")`); absent counts as `null`.
    case child(Path)

    /// The name used on the wire and in the query spec: `.priority`, `.key`, `.value` or the
    /// child path without a leading `/`.
    public var wireName: String {
        switch self {
        case .priority: ".priority"
        case .key: ".key"
        case .value: ".value"
        case .child(let path): path.keys.map(\.name).joined(separator: "/")
        }
    }

    /// The value a child is ordered by (for `.key`, the key as a string leaf).
    public func indexedValue(of child: NamedNode) -> Node {
        switch self {
        case .priority: child.node.priority.map { Node($0.leafValue) } ?? .empty
        case .key: Node(.string(child.key.name))
        case .value: child.node
        case .child(let path): child.node.child(at: path)
        }
    }

    /// Three-way comparison of two children in this order.
    public func compare(_ lhs: NamedNode, _ rhs: NamedNode) -> Int {
        let order: Int
        switch self {
        case .key:
            return ChildKey.compare(lhs.key, rhs.key)
        case .priority:
            order = Priority.compare(lhs.node.priority, rhs.node.priority)
        case .value:
            order = Self.compareValues(lhs.node, rhs.node)
        case .child(let path):
            order = Self.compareValues(lhs.node.child(at: path), rhs.node.child(at: path))
        }
        return order != 0 ? order : ChildKey.compare(lhs.key, rhs.key)
    }

    /// Three-way comparison of a child with a query bound.
    public func compare(_ child: NamedNode, to position: IndexPosition) -> Int {
        let order: Int
        switch self {
        case .key:
            // Under key order the bound's value is the key; without one the bound is before
            // (`.min`) or after (`.max`) every key, as the Web SDK's `[MIN_NAME]` and
            // `[MAX_NAME]` are (firebase-js-sdk `core/util/util.ts`, `nameCompare`).
            guard case .string(let name)? = position.value else { return position.key == .max ? -1 : 1 }
            return ChildKey.compare(child.key, ChildKey(unchecked: name))
        case .priority:
            order = Priority.compare(child.node.priority, position.value.flatMap(Priority.init))
        case .value, .child:
            order = Self.compareValues(indexedValue(of: child), position.value.map { Node($0) } ?? .empty)
        }
        if order != 0 { return order }
        switch position.key {
        case .min: return 1
        case .max: return -1
        case .key(let key): return ChildKey.compare(child.key, key)
        }
    }

    /// Value order: empty (null) < leaves (by ``LeafValue/compare(_:_:)``) < objects.
    public static func compareValues(_ lhs: Node, _ rhs: Node) -> Int {
        switch (lhs.leafValue, rhs.leafValue) {
        case (let a?, let b?):
            return LeafValue.compare(a, b)
        case (_?, nil):
            return rhs.isEmpty ? 1 : -1
        case (nil, _?):
            return lhs.isEmpty ? -1 : 1
        case (nil, nil):
            if lhs.isEmpty == rhs.isEmpty { return 0 }
            return lhs.isEmpty ? -1 : 1
        }
    }
}

extension Index: CustomStringConvertible {
    public var description: String {
        switch self {
        case .priority: "priority"
        case .key: "key"
        case .value: "value"
        case .child(let path): "child \(path.keys.map(\.name).joined(separator: "/"))"
        }
    }
}
