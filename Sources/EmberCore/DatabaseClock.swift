#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A source of wall-clock time in milliseconds since the Unix epoch.
///
/// Everything time-dependent (server timestamps, push IDs, cache last-use, back-off, script
/// deadlines) takes a clock, so tests can freeze or step time and the shell can skew the
/// server's clock.
public protocol DatabaseClock: Sendable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    func now() -> Int64
}

/// The system's real-time clock.
public struct SystemClock: DatabaseClock {
    public init() {}

    public func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
