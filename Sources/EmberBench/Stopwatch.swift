/// Measures wall-clock durations with the monotonic clock.
enum Stopwatch {
    static func measure(_ body: () -> Void) -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        body()
        return clock.now - start
    }
}
