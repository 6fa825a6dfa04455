import CEditLine
import Glibc

/// The REPL's line editor: libedit with emacs keys, a prompt and a history.
///
/// A `LineEditor` owns its `EditLine`, its `History` and its own `FILE` streams (duplicates of
/// the descriptors it is given), and frees all of them in `deinit`. When the input is not a
/// terminal, libedit turns editing off and ``readLine()`` reads plain lines, so an editor works
/// over pipes and `/dev/null` too (which is how the tests drive it).
///
/// It is confined to one thread. libedit reads terminal capabilities through process-wide state
/// while an editor is created, so create editors one at a time.
///
/// ```swift
/// let editor = try LineEditor()
/// editor.prompt = "main:/> "
/// while let line = editor.readLine() { try editor.addHistory(line) }
/// ```
public final class LineEditor {
    /// The editor; owned.
    private let editLine: OpaquePointer
    /// The history attached to the editor; owned.
    let history: OpaquePointer
    /// The streams the editor reads and writes; owned (duplicated descriptors).
    private let streams: [UnsafeMutablePointer<FILE>]
    /// The prompt as a C string, returned to libedit by the prompt function.
    private var promptStorage: UnsafeMutablePointer<CChar>

    /// The prompt shown before each line.
    public var prompt: String {
        didSet {
            free(promptStorage)
            promptStorage = strdup(prompt)
        }
    }

    /// The most entries the history keeps; the oldest go first.
    public var historyLimit: Int {
        didSet {
            var event = HistEvent()
            _ = ember_history_setsize(history, &event, Int32(clamping: max(historyLimit, 0)))
        }
    }

    /// Creates an editor reading `input` and writing `output` and `error` (file descriptors,
    /// duplicated: the caller keeps its own).
    ///
    /// - Parameters:
    ///   - program: the name libedit uses to select `~/.editrc` settings.
    ///   - historyLimit: the most history entries kept.
    /// - Throws: ``LineEditorError`` when a descriptor cannot be opened or libedit fails.
    public init(
        program: String = "ember",
        input: Int32 = STDIN_FILENO,
        output: Int32 = STDOUT_FILENO,
        error: Int32 = STDERR_FILENO,
        historyLimit: Int = 1000
    ) throws(LineEditorError) {
        var streams: [UnsafeMutablePointer<FILE>] = []
        for (descriptor, mode) in [(input, "r"), (output, "w"), (error, "w")] {
            let copy = dup(descriptor)
            guard copy >= 0, let stream = fdopen(copy, mode) else {
                let reason = String(cString: strerror(errno))
                if copy >= 0 { close(copy) }
                streams.forEach { fclose($0) }
                throw LineEditorError("cannot open file descriptor \(descriptor): \(reason)")
            }
            streams.append(stream)
        }
        guard let editLine = el_init(program, streams[0], streams[1], streams[2]) else {
            streams.forEach { fclose($0) }
            throw LineEditorError("cannot initialise libedit")
        }
        guard let history = history_init() else {
            el_end(editLine)
            streams.forEach { fclose($0) }
            throw LineEditorError("cannot initialise the libedit history")
        }
        self.editLine = editLine
        self.history = history
        self.streams = streams
        self.prompt = ""
        self.promptStorage = strdup("")
        self.historyLimit = historyLimit

        var event = HistEvent()
        _ = ember_history_setsize(history, &event, Int32(clamping: max(historyLimit, 0)))
        _ = ember_history_setunique(history, &event, 1)
        _ = ember_el_set_clientdata(editLine, Unmanaged.passUnretained(self).toOpaque())
        _ = ember_el_set_prompt(editLine) { editLine in
            // the client data is set before any line is read, and the editor outlives libedit's use
            let owner = Unmanaged<LineEditor>.fromOpaque(ember_el_get_clientdata(editLine)!).takeUnretainedValue()
            return owner.promptStorage
        }
        _ = ember_el_set_editor(editLine, "emacs")
        _ = ember_el_set_signal(editLine, 1)
        _ = ember_el_set_history(editLine, history)
    }

    deinit {
        el_end(editLine)
        history_end(history)
        streams.forEach { fclose($0) }
        free(promptStorage)
    }

    /// The key bindings in use: "emacs" or "vi".
    public var keyBindings: String {
        var mode: UnsafePointer<CChar>?
        guard ember_el_get_editor(editLine, &mode) == 0, let mode else { return "" }
        return String(cString: mode)
    }

    /// Whether the input is a terminal: only then does libedit draw the prompt and edit lines
    /// (the shell also turns completion off otherwise, so pasted tabs stay tabs).
    public var isTerminal: Bool {
        isatty(fileno(streams[0])) == 1
    }

    /// Reads one line, showing the prompt when editing; returns it without its newline, or `nil`
    /// at the end of the input (Ctrl-D on an empty line).
    public func readLine() -> String? {
        var count: Int32 = 0
        guard let line = el_gets(editLine, &count), count > 0 else { return nil }
        var text = String(cString: line)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
