extension Node: Hashable {
    /// Two nodes are equal when they hold the same data with the same priorities.
    /// Shared subtrees are recognised by identity and not compared further.
    /// - Complexity: O(n) in the size of the smaller tree, less where subtrees are shared.
    public static func == (lhs: Node, rhs: Node) -> Bool {
        guard lhs.priority == rhs.priority else { return false }
        switch (lhs.base, rhs.base) {
        case (.empty, .empty):
            return true
        case (.leaf(let a), .leaf(let b)):
            return a == b
        case (.packed(let a), .packed(let b)) where a === b || a.hasSameBytes(as: b):
            return true
        case (.children, .children), (.indexed, .indexed), (.packed, .packed), (.packed, .children), (.children, .packed):
            let a = lhs.childTree, b = rhs.childTree
            if a.isIdentical(to: b) { return true }
            guard a.count == b.count else { return false }
            return zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default:
            return false
        }
    }

    /// Whether the two nodes are known equal without comparing their children: both empty,
    /// equal leaves, or children held in the same storage, with the same priority. `false`
    /// says nothing: they may still be equal.
    /// - Complexity: O(1) (O(length) for two string leaves).
    public func isKnownEqual(to other: Node) -> Bool {
        guard priority == other.priority else { return false }
        switch (base, other.base) {
        case (.empty, .empty): return true
        case (.leaf(let a), .leaf(let b)): return a == b
        case (.packed(let a), .packed(let b)): return a === b
        case (.children(let a), .children(let b)): return a.isIdentical(to: b)
        case (.indexed(let a), .indexed(let b)): return a.byKey.isIdentical(to: b.byKey) && a.byPriority.isIdentical(to: b.byPriority)
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(priority)
        switch base {
        case .empty:
            hasher.combine(0 as UInt8)
        case .leaf(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        default:
            hasher.combine(2 as UInt8)
            hasher.combine(childCount)
            for child in children {
                hasher.combine(child.key)
                hasher.combine(child.node)
            }
        }
    }
}
