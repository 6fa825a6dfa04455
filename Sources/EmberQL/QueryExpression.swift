import EmberCore

/// The query modifiers of a `get`, `ls` or `watch`, compiled and checked.
public struct QueryExpression: Sendable, Hashable {
    /// The query (``QueryParams/default`` when no modifier was written).
    public var params: QueryParams
    /// The modifiers as written, normalised to single spaces (`orderBy child score
    /// limitToLast 3`); empty when none. Shown by `watches`.
    public var text: String

    /// No modifiers.
    public static let none = QueryExpression(params: .default, text: "")

    /// Creates a query expression.
    public init(params: QueryParams, text: String) {
        self.params = params
        self.text = text
    }
}
