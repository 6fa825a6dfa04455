import EmberCore

/// One location of the server's tree read from its store: what ``ServerStore/loadLocation(_:)``
/// returns.
public struct StoredLocation: Sendable {
    /// The location read: the one asked for, or the ancestor of it that holds a leaf (the
    /// location asked for does not exist then, and the leaf is the smallest whole location
    /// around it).
    public let path: Path
    /// The data at ``path`` as committed, priority included.
    public let node: Node
    /// The rows left out because they would not pass a write's checks.
    public let badRows: [BadRow]
    /// The bytes of the rows read (their paths and JSON): what the location costs the store.
    public let bytes: Int
    /// The priorities read of nodes (relative to ``path``) whose every other row was skipped:
    /// empty in ``node``, they hold only what the caller keeps in memory, and when that is not
    /// empty the priority is theirs (``ServerStore/loadLocation(_:skipping:interiorAncestors:)``).
    public let heldPriorities: [(path: Path, priority: Priority)]

    public init(path: Path, node: Node, badRows: [BadRow], bytes: Int, heldPriorities: [(path: Path, priority: Priority)] = []) {
        self.path = path
        self.node = node
        self.badRows = badRows
        self.bytes = bytes
        self.heldPriorities = heldPriorities
    }
}
