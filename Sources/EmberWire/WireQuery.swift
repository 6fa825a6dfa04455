import EmberCore

/// A query as it travels: the location and the order, range and limit (the default query when
/// `params` is the default).
public struct WireQuery: Sendable, Hashable, CustomStringConvertible {
    public var path: Path
    public var params: QueryParams

    public init(path: Path, params: QueryParams = .default) {
        self.path = path
        self.params = params
    }

    public var description: String { params.isDefault ? path.description : "\(path) \(params)" }
}
