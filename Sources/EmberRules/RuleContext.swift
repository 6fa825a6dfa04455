import EmberCore

/// What a rule is evaluated against: who asks, when, the data before (and after, for a write),
/// the location, the keys its wildcards matched and, for a read, the query.
public struct RuleContext: Sendable {
    /// The `auth` variable: the token's claims, or `nil` when not signed in.
    public var auth: JSONValue?
    /// `now`: the server's time, in milliseconds since the epoch.
    public var now: Int64
    /// `root`: the whole tree before the operation.
    public var root: Node
    /// The whole tree after the write (`newData`); `nil` for a read.
    public var newRoot: Node?
    /// The location of the rule (`data`, `newData`).
    public var path: Path
    /// The keys the wildcards above the rule matched, by name with its `$`.
    public var captures: [String: String]
    /// `query`, for a read.
    public var query: RuleQuery

    public init(
        auth: JSONValue?, now: Int64, root: Node, newRoot: Node? = nil, path: Path = .root, captures: [String: String] = [:],
        query: RuleQuery = RuleQuery()
    ) {
        self.auth = auth
        self.now = now
        self.root = root
        self.newRoot = newRoot
        self.path = path
        self.captures = captures
        self.query = query
    }
}
