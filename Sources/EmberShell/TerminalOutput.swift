/// The shell's output at a terminal: like ``StandardOutput``, but while the REPL waits for a
/// line, events print above the prompt without mangling what is being typed.
public final class TerminalOutput: ShellOutput {
    /// The REPL's editor, once there is one.
    public weak var editor: LineEditor?

    /// Creates the output.
    public init() {}

    public func write(_ text: String) { StandardOutput.write(text, to: 1) }
    public func writeError(_ text: String) { StandardOutput.write(text, to: 2) }

    public func writeEvent(_ text: String) {
        if let editor, editor.isReading {
            editor.printAbove(text)
        } else {
            StandardOutput.write(text, to: 1)
        }
    }
}
