import EmberCore

/// A snapshot in a rule (`root`, `data`, `newData` and what `child()`/`parent()` give): a
/// location in one version of the whole tree. Its data is looked up only when a method reads
/// it (`val()`, `exists()`, ...), so `root.child('a').child('b')` reads `/a/b`, not the root.
public struct RuleSnapshot: Sendable, Hashable {
    /// Which version of the tree.
    public enum Version: Sendable, Hashable {
        /// Before the operation (`root`, `data`).
        case before
        /// After the write (`newData`).
        case after
    }

    let data: RuleData
    public let version: Version
    public let path: Path

    init(_ data: RuleData, _ version: Version, path: Path) {
        self.data = data
        self.version = version
        self.path = path
    }

    /// A location below this one (`child()`).
    /// - Complexity: O(depth of `relative`).
    func descendant(_ relative: Path) -> RuleSnapshot { RuleSnapshot(data, version, path: path.appending(relative)) }

    /// The location above (`parent()`), or `nil` at the root.
    var parent: RuleSnapshot? { path.parent.map { RuleSnapshot(data, version, path: $0) } }

    /// The data at the location.
    /// - Complexity: as ``RuleData/node(at:)``.
    public var node: Node { data.node(at: path) }

    /// Two snapshots are equal when they are the same location of the same version, or hold
    /// equal data at the same location.
    public static func == (lhs: RuleSnapshot, rhs: RuleSnapshot) -> Bool {
        lhs.path == rhs.path && (lhs.version == rhs.version || lhs.node == rhs.node)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(path) }
}
