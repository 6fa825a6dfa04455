/// A child's position in value or child order: the value it is ordered by, then its key.
///
/// This is the sort key of a ``ChildIndex``. It orders children exactly as
/// ``Index/compare(_:_:)`` does for `.value` and `.child(path)`: by ``Index/compareValues(_:_:)``
/// (`null` < leaves < objects, all objects tying), then by ``ChildKey/compare(_:_:)``. Query
/// bounds (``IndexPosition``s, whose tie-breaking key may be `.min` or `.max`) are not keys of
/// this type; compare with them through ``compare(to:)``, or use ``isAfterStart(_:)`` and
/// ``isBeforeEnd(_:)``, which are monotone over this order and so fit
/// `SortedTreeCursor.Start.firstWhere` and `.lastWhere`.
public struct IndexedValueKey: TreeKey, Hashable {
    /// The value a child is ordered by, reduced to what the order looks at.
    public enum Value: Sendable, Hashable {
        /// No value (an absent child path counts as `null`).
        case null
        /// A leaf, compared with ``LeafValue/compare(_:_:)``.
        case leaf(LeafValue)
        /// Any object: all objects tie, and sort after every leaf.
        case object

        /// The ordered-by value of a node (its priority plays no part).
        /// - Complexity: O(1).
        public init(_ node: Node) {
            if node.isEmpty {
                self = .null
            } else if let leaf = node.leafValue {
                self = .leaf(leaf)
            } else {
                self = .object
            }
        }

        /// The value of a query bound: `nil` is `null`.
        /// - Complexity: O(1).
        public init(_ bound: LeafValue?) {
            self = bound.map { .leaf($0) } ?? .null
        }

        /// Three-way comparison in value order, as ``Index/compareValues(_:_:)``.
        /// - Complexity: O(1) (O(m) for strings of length m).
        public static func compare(_ lhs: Value, _ rhs: Value) -> Int {
            switch (lhs, rhs) {
            case (.leaf(let a), .leaf(let b)): LeafValue.compare(a, b)
            case (.null, .null), (.object, .object): 0
            case (.null, _), (_, .object): -1
            case (_, .null), (.object, _): 1
            }
        }
    }

    /// The value the child is ordered by.
    public var value: Value
    /// The child's key, which breaks ties.
    public var key: ChildKey

    /// A key from its parts.
    public init(_ value: Value, _ key: ChildKey) {
        self.value = value
        self.key = key
    }

    /// The key of a child under `index`, which must be `.value` or `.child(path)`.
    /// - Complexity: O(1) for `.value`; O(d log m) for a child path of d keys.
    public init(_ child: NamedNode, in index: Index) {
        switch index {
        case .value: self.init(Value(child.node), child.key)
        case .child(let path): self.init(Value(child.node.child(at: path)), child.key)
        case .key, .priority: preconditionFailure("IndexedValueKey orders by value or child, not by \(index)")
        }
    }

    /// Three-way comparison: by value, then by key.
    /// - Complexity: O(1) (plus the length of compared strings).
    public static func compare(_ lhs: IndexedValueKey, _ rhs: IndexedValueKey) -> Int {
        let order = Value.compare(lhs.value, rhs.value)
        return order != 0 ? order : ChildKey.compare(lhs.key, rhs.key)
    }

    /// Three-way comparison with a query bound, as ``Index/compare(_:to:)`` for value and child
    /// order: negative when this key sorts before `position`, zero when it is exactly there.
    /// - Complexity: O(1) (plus the length of compared strings).
    public func compare(to position: IndexPosition) -> Int {
        let order = Value.compare(value, Value(position.value))
        if order != 0 { return order }
        switch position.key {
        case .min: return 1
        case .max: return -1
        case .key(let key): return ChildKey.compare(self.key, key)
        }
    }

    /// Whether this key is at or after a query's start (always, when there is none). False for a
    /// prefix of the keys in order and true for the rest.
    /// - Complexity: as ``compare(to:)``.
    public func isAfterStart(_ start: RangeBound?) -> Bool {
        switch start {
        case nil: true
        case .including(let position)?: compare(to: position) >= 0
        case .excluding(let position)?: compare(to: position) > 0
        }
    }

    /// Whether this key is at or before a query's end (always, when there is none). True for a
    /// prefix of the keys in order and false for the rest.
    /// - Complexity: as ``compare(to:)``.
    public func isBeforeEnd(_ end: RangeBound?) -> Bool {
        switch end {
        case nil: true
        case .including(let position)?: compare(to: position) <= 0
        case .excluding(let position)?: compare(to: position) < 0
        }
    }
}

extension IndexedValueKey: CustomStringConvertible {
    public var description: String {
        let shown: String
        switch value {
        case .null: shown = "null"
        case .leaf(let leaf): shown = leaf.description
        case .object: shown = "{…}"
        }
        return "(\(shown), \(key))"
    }
}
