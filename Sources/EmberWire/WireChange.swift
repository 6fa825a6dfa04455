import EmberCore

/// One member of a merge: a path relative to the merge's location, and the value put there
/// (empty deletes).
public struct WireChange: Sendable, Hashable {
    public var path: Path
    public var node: Node

    public init(_ path: Path, _ node: Node) {
        self.path = path
        self.node = node
    }
}
