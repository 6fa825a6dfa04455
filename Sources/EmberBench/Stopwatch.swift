/// Measures wall-clock durations with the monotonic clock.
enum Stopwatch {
    static func measure(_ body: () throws -> Void) rethrows -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        return clock.now - start
    }
}
