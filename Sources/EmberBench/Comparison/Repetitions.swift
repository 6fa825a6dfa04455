/// How every workload repeats: one unmeasured warm-up at a tenth of the size, then the
/// measured runs at full size.
enum Repetitions {
    /// Runs `once` with a tenth of `size` (at least `minimum`) unmeasured, then `runs` times
    /// with `size`; the measured runs' results.
    static func measure<Value>(size: Int, runs: Int, minimum: Int = 1, _ once: (Int) throws -> Value) rethrows -> [Value] {
        _ = try once(max(minimum, size / 10))
        return try (0..<runs).map { _ in try once(size) }
    }
}
