/// A query at a location: what a listener watches, what a client's view answers, and what a
/// listen or a `get` names on the wire.
///
/// Two specs with the same path and parameters share one view. Queries that load all data
/// (no range, no limit) need no tag on the wire; the others are "filtered".
public struct QuerySpec: Sendable, Hashable, CustomStringConvertible {
    /// The location queried.
    public var path: Path
    /// The order, range and limit.
    public var params: QueryParams

    public init(path: Path, params: QueryParams = .default) {
        self.path = path
        self.params = params
    }

    /// The default query at `path`.
    public static func `default`(at path: Path) -> QuerySpec { QuerySpec(path: path) }

    /// Whether the query returns every child of the location (no range, no limit).
    public var loadsAllData: Bool { params.loadsAllData }

    /// Whether this is the default query (every child, priority order).
    public var isDefault: Bool { params.isDefault }

    /// The query sent to the server to listen: a query that loads all data is sent as the
    /// default query, since the server answers it with the whole location either way.
    public var forListening: QuerySpec {
        loadsAllData && !isDefault ? .default(at: path) : self
    }

    public var description: String {
        params.isDefault ? path.description : "\(path) \(params)"
    }
}
