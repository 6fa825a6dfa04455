import EmberCore

/// A range of milliseconds a command accepts, with the words its errors use.
///
/// Every duration a user types is checked against one of these before it reaches the engine,
/// whose clock arithmetic (`now + MS`) would overflow on numbers near 2^63.
public struct MillisecondRange: Sendable, Hashable {
    /// The accepted values.
    public let bounds: ClosedRange<Int64>
    /// The upper bound in words ("1 hour"), for messages.
    public let span: String

    /// A range `bounds`, its upper bound described as `span`.
    public init(_ bounds: ClosedRange<Int64>, span: String) {
        self.bounds = bounds
        self.span = span
    }

    /// "between 0 and 3600000 milliseconds (1 hour)".
    public var description: String {
        "between \(bounds.lowerBound) and \(bounds.upperBound) milliseconds (\(span))"
    }
}

extension MillisecondRange {
    /// `server clock skew MS`: up to 10 years (of 365 days) ahead or behind.
    public static let clockSkew = MillisecondRange(-315_360_000_000...315_360_000_000, span: "10 years either way")
    /// `server latency MS`: up to 1 hour each way.
    public static let latency = MillisecondRange(0...3_600_000, span: "1 hour")
    /// `server timeout MS`: 1 ms to 1 day.
    public static let disconnectTimeout = MillisecondRange(1...86_400_000, span: "1 day")
    /// `get ... timeout MS`: up to 1 day (the client's longest wait for the connection).
    public static let connectTimeout = MillisecondRange(0...86_400_000, span: "1 day")
    /// `auth {...} expires MS`: 1 ms to 10 years (of 365 days).
    public static let tokenLifetime = MillisecondRange(1...Limits.maxTokenLifetime, span: "10 years")
    /// `sleep MS`: up to 1 day.
    public static let sleep = MillisecondRange(0...86_400_000, span: "1 day")
}
