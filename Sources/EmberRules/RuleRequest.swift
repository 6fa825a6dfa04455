import EmberCore

/// Everything one rules check depends on: the operation, who asks, when, and the data before
/// (and after, for a write). Kept (``keeping(_:)``: only the data the check read), it lets
/// `explain` evaluate the same check again with every sub-expression traced, long after the
/// data moved on.
public struct RuleRequest: Sendable {
    /// What is checked.
    public enum Operation: Sendable {
        /// A read at a path (a get or a listen), with its query's variables. Boxed: the query is
        /// over a hundred bytes, and unboxed it made every write's operation that large, copied
        /// through the type's value witnesses.
        indirect case read(Path, RuleQuery)
        /// A write at each of these paths (one for a set, several for a multi-path update), all
        /// against the same new data.
        case write([Path])
    }

    public let operation: Operation
    /// The `auth` variable: `nil` when not signed in.
    public let auth: JSONValue?
    /// `now`: the server's time in milliseconds.
    public let now: Int64
    /// The data before the operation (`root`, `data`).
    public let root: RuleData
    /// The data after the write (`newData`); the same data for a read.
    public let newRoot: RuleData

    public init(_ operation: Operation, auth: JSONValue?, now: Int64, data: RuleData, newData: RuleData? = nil) {
        self.operation = operation
        self.auth = auth
        self.now = now
        self.root = data
        self.newRoot = newData ?? data
    }

    /// A request over whole trees.
    public init(_ operation: Operation, auth: JSONValue?, now: Int64, root: Node, newRoot: Node? = nil) {
        self.init(operation, auth: auth, now: now, data: .tree(root), newData: newRoot.map(RuleData.tree))
    }

    /// The same request holding only the data `reads` says its check read: enough to evaluate
    /// it again, traced, for `explain`, without keeping the trees alive.
    public func keeping(_ reads: RuleReads) -> RuleRequest {
        RuleRequest(operation, auth: auth, now: now, data: .recorded(reads.before), newData: .recorded(reads.after))
    }
}
