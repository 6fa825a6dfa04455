import EmberCore

/// A user write kept in a client's queue until the server answers it: sent again, with the same
/// key, after a restart.
public struct PersistedWrite: Sendable, Hashable {
    /// What is written.
    public enum Change: Sendable, Hashable {
        /// A set: the value as the user wrote it (server values unresolved).
        case put(Node)
        /// An update: paths relative to the write's location, in order.
        case merge([Changed])
    }

    /// One path of an update and its new value.
    public struct Changed: Sendable, Hashable {
        public let path: Path
        public let node: Node

        public init(_ path: Path, _ node: Node) {
            self.path = path
            self.node = node
        }
    }

    /// The key the server recognizes the write by (its session and number).
    public let key: String
    public let path: Path
    public let change: Change

    public init(key: String, path: Path, change: Change) {
        self.key = key
        self.path = path
        self.change = change
    }
}
