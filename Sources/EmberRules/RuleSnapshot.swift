import EmberCore

/// A snapshot in a rule (`root`, `data`, `newData` and what `child()`/`parent()` give): a
/// location in one version of the whole tree.
public struct RuleSnapshot: Sendable, Hashable {
    /// The whole tree (before the operation, or after the write for `newData`).
    public let root: Node
    public let path: Path
    /// The data at the location, found once.
    public let node: Node

    /// The location `path` of `root`.
    /// - Complexity: O(depth of the path), once.
    public init(root: Node, path: Path) {
        self.root = root
        self.path = path
        node = root.child(at: path)
    }

    /// A location below this one (`child()`), found from this one's data.
    /// - Complexity: O(depth of `relative`).
    func descendant(_ relative: Path) -> RuleSnapshot {
        RuleSnapshot(root: root, path: path.appending(relative), node: node.child(at: relative))
    }

    private init(root: Node, path: Path, node: Node) {
        self.root = root
        self.path = path
        self.node = node
    }

    public static func == (lhs: RuleSnapshot, rhs: RuleSnapshot) -> Bool { lhs.path == rhs.path && lhs.root == rhs.root }
    public func hash(into hasher: inout Hasher) { hasher.combine(path) }
}
