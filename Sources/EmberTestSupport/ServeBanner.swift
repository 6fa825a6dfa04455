import Foundation

/// What `ember serve` prints when it starts, as the tests and the benchmarks that run it read it:
/// a line `ember serve: listening on HOST:PORT`, then the URLs to use.
public enum ServeBanner {
    /// Reads `output` (the standard output of `process`, a starting `ember serve`) until the
    /// banner says where it listens, the process ends, or `timeout` seconds pass.
    /// - Returns: the port, if the banner said it, and the text read.
    public static func waitForPort(in output: FileHandle, of process: Process, timeout: TimeInterval) -> (port: Int?, text: String) {
        let deadline = Date().addingTimeInterval(timeout)
        var text = ""
        while Date() < deadline, process.isRunning {
            let data = output.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            if let port = port(in: text) { return (port, text) }
        }
        return (nil, text)
    }

    /// The port of the `listening on HOST:PORT` line in `text`, once it is there.
    public static func port(in text: String) -> Int? {
        guard let line = text.split(separator: "\n").first(where: { $0.contains("listening on") }) else { return nil }
        return line.split(separator: ":").last.flatMap { Int($0) }
    }
}
