/// A key type with a total three-way order, used by ``SortedTree``.
///
/// A three-way comparison lets the tree decide "less", "equal" or "greater" with one call, which
/// matters when comparing keys is not trivial (Firebase key order parses integers).
public protocol TreeKey: Sendable {
    /// Negative when `lhs` sorts first, zero when equal, positive when `rhs` sorts first.
    static func compare(_ lhs: Self, _ rhs: Self) -> Int
}

extension ChildKey: TreeKey {}
