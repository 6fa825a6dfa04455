/// Prints benchmark results as Markdown table rows.
final class BenchReport {
    func header(_ title: String) {
        print("\n### \(title)\n")
        print("| workload | total | per operation |")
        print("|---|---:|---:|")
    }

    func row(_ name: String, total: Duration, operations: Int) {
        let seconds = total.seconds
        let perOperation = seconds / Double(operations)
        print("| \(name) | \(format(seconds)) | \(format(perOperation)) |")
    }

    func line(_ text: String) {
        print("- \(text)")
    }

    private func format(_ seconds: Double) -> String {
        if seconds >= 1 { return String(Int((seconds * 1000).rounded())) .inserting(".", at: -3) + " s" }
        if seconds >= 1e-3 { return "\(round2(seconds * 1e3)) ms" }
        if seconds >= 1e-6 { return "\(round2(seconds * 1e6)) µs" }
        return "\(round2(seconds * 1e9)) ns"
    }

    private func round2(_ value: Double) -> String {
        let scaled = (value * 100).rounded() / 100
        return String(scaled)
    }
}

extension String {
    fileprivate func inserting(_ separator: String, at offsetFromEnd: Int) -> String {
        let index = self.index(endIndex, offsetBy: offsetFromEnd)
        return String(self[..<index]) + separator + String(self[index...])
    }
}
