import EmberCore

/// One location of the server's tree read from its store: what ``ServerStore/loadLocation(_:)``
/// returns.
public struct StoredLocation: Sendable {
    /// Which location was read, for the one asked for.
    public enum Reach: Sendable, Equatable {
        /// The location asked for.
        case asked
        /// An ancestor that holds a leaf: the location asked for does not exist, and the leaf
        /// is the smallest whole location around it.
        case leafAbove
        /// The location asked for had no row, nor any row around it up to this ancestor: the
        /// widest empty location around it (nothing was read; the caller's locations below it
        /// in memory are all it holds).
        case emptyAround
    }

    /// The location read (see ``reach``).
    public let path: Path
    /// How ``path`` stands to the location asked for.
    public let reach: Reach
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

    public init(
        path: Path, reach: Reach = .asked, node: Node, badRows: [BadRow], bytes: Int, heldPriorities: [(path: Path, priority: Priority)] = []
    ) {
        self.path = path
        self.reach = reach
        self.node = node
        self.badRows = badRows
        self.bytes = bytes
        self.heldPriorities = heldPriorities
    }
}
