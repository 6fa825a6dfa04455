import EmberCore

/// A value as written in relaxed JSON, parsed, with where it starts.
///
/// `now` is the server timestamp (``JSONValue/serverTimestamp``) and `increment(N)` the server
/// increment (``JSONValue/increment(_:)``), so the value goes to the database as is.
public struct ValueExpression: Sendable, Equatable {
    /// The value.
    public var value: JSONValue
    /// Where it starts in the input.
    public var position: SourcePosition

    /// Creates a value expression.
    public init(_ value: JSONValue, at position: SourcePosition) {
        self.value = value
        self.position = position
    }
}
