import Foundation

extension Array where Element == Double {
    /// The value at fraction `p` (0...1) of these values, which are sorted ascending: the
    /// nearest rank at or below, the last for 1.
    /// - Complexity: O(1).
    func percentile(_ p: Double) -> Double { self[Swift.min(count - 1, Int(Double(count) * p))] }

    /// p0, p1, p10, p50, p90, p99 and p100 of these sorted latencies (seconds), in
    /// milliseconds, for a line of `ember-bench network`'s output.
    var percentileLine: String {
        [0.0, 0.01, 0.1, 0.5, 0.9, 0.99, 1.0].map { String(format: "p%g %.2f", $0 * 100, percentile($0) * 1000) }.joined(separator: ", ")
    }
}
