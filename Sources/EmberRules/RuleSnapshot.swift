import EmberCore

/// A snapshot in a rule (`root`, `data`, `newData` and what `child()`/`parent()` give): a
/// location in one version of the whole tree.
public struct RuleSnapshot: Sendable, Hashable {
    /// The whole tree (before the operation, or after the write for `newData`).
    public let root: Node
    public let path: Path

    public init(root: Node, path: Path) {
        self.root = root
        self.path = path
    }

    /// The data at the location.
    /// - Complexity: O(depth of the path).
    public var node: Node { root.child(at: path) }

    public static func == (lhs: RuleSnapshot, rhs: RuleSnapshot) -> Bool { lhs.path == rhs.path && lhs.root == rhs.root }
    public func hash(into hasher: inout Hasher) { hasher.combine(path) }
}
