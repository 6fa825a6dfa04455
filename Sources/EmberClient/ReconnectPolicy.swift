/// How long a client waits before each attempt to reconnect: exponential back-off with jitter,
/// as the Firebase SDKs do.
public struct ReconnectPolicy: Sendable, Hashable {
    /// The first delay, in milliseconds.
    public var initialDelay: Int64
    /// The longest delay, in milliseconds.
    public var maximumDelay: Int64
    /// How much the delay grows after each failed attempt.
    public var multiplier: Double

    /// The Firebase SDKs' values: 1 s, growing by 1.3 up to 30 s.
    public static let standard = ReconnectPolicy(initialDelay: 1_000, maximumDelay: 30_000, multiplier: 1.3)

    public init(initialDelay: Int64, maximumDelay: Int64, multiplier: Double) {
        self.initialDelay = max(0, initialDelay)
        self.maximumDelay = max(self.initialDelay, maximumDelay)
        self.multiplier = max(1, multiplier)
    }

    /// The delay that follows `delay`.
    func growing(_ delay: Int64) -> Int64 {
        min(maximumDelay, Int64((Double(delay) * multiplier).rounded(.up)))
    }
}
