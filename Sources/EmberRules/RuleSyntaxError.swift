import EmberCore

/// A rule expression that cannot be accepted: it does not parse, or it cannot be a rule (a
/// value that is not a boolean, an unknown variable or method, an argument of the wrong type),
/// at `offset` in the expression (0-based, in characters).
public struct RuleSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public let reason: String
    /// Where in the expression, in characters from its start.
    public let offset: Int

    public init(_ reason: String, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "\(reason) (at character \(offset + 1))" }
}
