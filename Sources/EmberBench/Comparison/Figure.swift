import Foundation

/// One measured figure: the value each repetition gave, in one unit.
///
/// Figures are what the comparison table prints: the median with the range of the runs, so
/// that the spread of this shared VM shows beside every number.
struct Figure: Sendable {
    /// What a figure counts, and which way is better.
    enum Unit: Sendable, Equatable {
        /// Operations per second (`"writes/s"`, `"events/s"`): higher is better.
        case rate(String)
        /// A duration in seconds per run or per operation: lower is better.
        case seconds
        /// Bytes per item (`"B/leaf"`): lower is better.
        case bytes(String)

        /// Whether a larger value is the better one.
        var higherIsBetter: Bool {
            if case .rate = self { return true }
            return false
        }
    }

    /// The value of each measured run (warm-up runs excluded), in `unit`.
    let runs: [Double]
    let unit: Unit

    init(runs: [Double], unit: Unit) {
        precondition(!runs.isEmpty, "a figure has at least one run")
        self.runs = runs.sorted()
        self.unit = unit
    }

    /// A rate from the durations of runs that each did `operations` operations.
    static func rate(_ unit: String, operations: Int, durations: [Duration]) -> Figure {
        Figure(runs: durations.map { Double(operations) / $0.seconds }, unit: .rate(unit))
    }

    /// Seconds per operation from the durations of runs that each did `operations` operations.
    static func latency(operations: Int = 1, durations: [Duration]) -> Figure {
        Figure(runs: durations.map { $0.seconds / Double(operations) }, unit: .seconds)
    }

    /// The median run (the upper median for an even count).
    var median: Double { runs[runs.count / 2] }
    var minimum: Double { runs.first! }
    var maximum: Double { runs.last! }

    /// How many times better this figure is than `other` (same unit): above 1 when this one is
    /// ahead, whichever way the unit counts.
    func advantage(over other: Figure) -> Double {
        unit.higherIsBetter ? median / other.median : other.median / median
    }

    /// `"106,700 writes/s (103,400–108,200)"`; one run prints no range.
    var formatted: String {
        let value = format(median)
        if runs.count == 1 { return value }
        return "\(value) (\(formatRange()))"
    }

    private func formatRange() -> String {
        "\(format(minimum, withUnit: false))–\(format(maximum, withUnit: false))"
    }

    private func format(_ value: Double, withUnit: Bool = true) -> String {
        switch unit {
        case .rate(let name), .bytes(let name):
            let number = Figure.grouped(value)
            return withUnit ? "\(number) \(name)" : number
        case .seconds:
            return Figure.duration(value)
        }
    }

    /// A count with thousands separators, rounded to three significant digits above 1,000.
    static func grouped(_ value: Double) -> String {
        if value < 10 { return String((value * 100).rounded() / 100) }
        if value < 1_000 { return String(Int(value.rounded())) }
        let digits = Int(log10(value)) + 1
        let scale = pow(10, Double(max(0, digits - 3)))
        let rounded = Int((value / scale).rounded() * scale)
        var text = String(rounded)
        var index = text.count - 3
        while index > 0 {
            text.insert(",", at: text.index(text.startIndex, offsetBy: index))
            index -= 3
        }
        return text
    }

    /// A duration in seconds as `1.51 s`, `153 ms`, `9.4 µs` or `850 ns`, three significant digits.
    static func duration(_ seconds: Double) -> String {
        let (value, suffix): (Double, String) =
            seconds >= 1 ? (seconds, "s") : seconds >= 1e-3 ? (seconds * 1e3, "ms") : seconds >= 1e-6 ? (seconds * 1e6, "µs") : (seconds * 1e9, "ns")
        let text = value >= 100 ? String(Int(value.rounded())) : value >= 10 ? String((value * 10).rounded() / 10) : String((value * 100).rounded() / 100)
        return "\(text) \(suffix)"
    }
}
