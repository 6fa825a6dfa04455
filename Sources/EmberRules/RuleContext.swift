import EmberCore

/// What a rule is evaluated against: who asks, when, the data before (and after, for a write),
/// the location, the keys its wildcards matched and, for a read, the query: what
/// ``Rule/evaluate(_:tracing:)`` and the explained decisions evaluate a rule against (their
/// evaluator takes its fields; the server's check makes an evaluator and no context).
public final class RuleContext: Sendable {
    /// The `auth` variable: the token's claims, or `nil` when not signed in.
    public let auth: JSONValue?
    /// `now`: the server's time, in milliseconds since the epoch.
    public let now: Int64
    /// `root`: the whole tree before the operation.
    public let root: RuleData
    /// The whole tree after the write (`newData`); `nil` for a read.
    public let newRoot: RuleData?
    /// The location of the rule (`data`, `newData`).
    public let path: Path
    /// The keys the wildcards above the rule matched, by name with its `$`.
    public let captures: RuleCaptures
    /// `query`, for a read.
    public let query: RuleQuery

    public init(
        auth: JSONValue?, now: Int64, data: RuleData, newData: RuleData? = nil, path: Path = .root, captures: RuleCaptures = [:],
        query: RuleQuery = RuleQuery()
    ) {
        self.auth = auth
        self.now = now
        self.root = data
        self.newRoot = newData
        self.path = path
        self.captures = captures
        self.query = query
    }

    /// A context over whole trees.
    public convenience init(
        auth: JSONValue?, now: Int64, root: Node, newRoot: Node? = nil, path: Path = .root, captures: RuleCaptures = [:],
        query: RuleQuery = RuleQuery()
    ) {
        self.init(
            auth: auth, now: now, data: .tree(root), newData: newRoot.map(RuleData.tree), path: path, captures: captures, query: query)
    }
}
