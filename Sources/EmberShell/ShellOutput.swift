import EmberEngine
import Glibc

/// Where the shell's results, errors and live events go.
///
/// The REPL's output prints events above the prompt while a line is being typed; the standard
/// output writes everything straight through; tests capture everything in order.
public protocol ShellOutput: AnyObject {
    /// Writes a result (standard output).
    func write(_ text: String)
    /// Writes an error or a diagnostic (standard error).
    func writeError(_ text: String)
    /// Writes a line that happened by itself (a `watch` event), not in answer to a command.
    func writeEvent(_ text: String)
}

/// The process's standard output and error, unbuffered per call.
public final class StandardOutput: ShellOutput {
    /// Creates the writer.
    public init() {}

    public func write(_ text: String) { Self.write(text, to: STDOUT_FILENO) }
    public func writeError(_ text: String) { Self.write(text, to: STDERR_FILENO) }
    public func writeEvent(_ text: String) { Self.write(text, to: STDOUT_FILENO) }

    /// Writes all of `text` to `descriptor`, retrying short writes and interruptions. With
    /// `stoppingOnCtrlC` it writes in slices of 4 KiB and stops at a Ctrl-C between two of them.
    /// - Returns: whether everything was written (false: Ctrl-C, or the reader went away).
    @discardableResult
    static func write(_ text: String, to descriptor: Int32, stoppingOnCtrlC: Bool = false) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            if stoppingOnCtrlC && InterruptSignal.isPending { return false }
            let slice = stoppingOnCtrlC ? bytes.prefix(4096) : bytes
            let written = slice.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            bytes = bytes.dropFirst(written)
        }
        return true
    }
}

/// Captures output in order, stderr lines marked, for transcript and unit tests.
public final class CapturedOutput: ShellOutput {
    /// Everything written, in order; error text is prefixed per line with `! `.
    public private(set) var text = ""

    /// Creates an empty capture.
    public init() {}

    public func write(_ text: String) { self.text += text }
    public func writeError(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0) {
            self.text += "! " + line + "\n"
        }
    }
    public func writeEvent(_ text: String) { self.text += text }

    /// Returns what was captured and empties the capture.
    public func take() -> String {
        defer { text = "" }
        return text
    }
}
