import EmberCore

/// Everything one rules check depends on: the operation, who asks, when, and the data before
/// (and after, for a write). Kept, it lets `explain` evaluate the same check again with every
/// sub-expression traced, long after the data moved on (the trees are shared, not copied).
public struct RuleRequest: Sendable {
    /// What is checked.
    public enum Operation: Sendable {
        /// A read at a path (a get or a listen), with its query's variables.
        case read(Path, RuleQuery)
        /// A write at each of these paths (one for a set, several for a multi-path update), all
        /// against the same new data.
        case write([Path])
    }

    public let operation: Operation
    /// The `auth` variable: `nil` when not signed in.
    public let auth: JSONValue?
    /// `now`: the server's time in milliseconds.
    public let now: Int64
    /// The whole tree before the operation (`root`, `data`).
    public let root: Node
    /// The whole tree after the write (`newData`); the same tree for a read.
    public let newRoot: Node

    public init(_ operation: Operation, auth: JSONValue?, now: Int64, root: Node, newRoot: Node? = nil) {
        self.operation = operation
        self.auth = auth
        self.now = now
        self.root = root
        self.newRoot = newRoot ?? root
    }
}
