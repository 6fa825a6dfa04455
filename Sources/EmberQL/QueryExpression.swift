import EmberCore

/// The query modifiers of a `get`, `ls` or `watch`, compiled and checked, and the `timeout MS`
/// of a `get` or `ls`.
public struct QueryExpression: Sendable, Hashable {
    /// The query (``QueryParams/default`` when no modifier was written).
    public var params: QueryParams
    /// The query modifiers as written, normalised to single spaces (`orderBy child score
    /// limitToLast 3`); empty when none. Shown by `watches`. The `timeout` is not among them.
    public var text: String
    /// `timeout MS`: how long a `get` or `ls` made while not connected waits for the
    /// connection, in milliseconds; `nil` for the client's default (3 s).
    public var connectTimeout: Int64?

    /// No modifiers.
    public static let none = QueryExpression(params: .default, text: "")

    /// Creates a query expression.
    public init(params: QueryParams, text: String, connectTimeout: Int64? = nil) {
        self.params = params
        self.text = text
        self.connectTimeout = connectTimeout
    }
}
