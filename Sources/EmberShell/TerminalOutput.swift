import Glibc

/// The shell's output at a terminal: like ``StandardOutput``, but while the REPL waits for a
/// line, events print above the prompt without mangling what is being typed; results longer
/// than the screen go through a pager; and Ctrl-C stops printing at once.
///
/// The REPL brackets each entry with ``beginCommand(paging:)`` and ``endCommand()``. In between,
/// results are held until they fill the screen: then the pager starts and gets them (and the
/// rest); a command whose results fit prints them when it ends. Events print at once, except
/// while the pager owns the screen (they follow it). Results are written in slices, and a
/// Ctrl-C between two slices stops the printing: the rest of the command's results are
/// dropped, and the interrupt stays pending so that the command stops at its next wait (the
/// REPL clears it when the entry ends; a Ctrl-C typed in the pager is cleared the same way).
public final class TerminalOutput: ShellOutput {
    /// The REPL's editor, once there is one.
    public weak var editor: LineEditor?
    /// The pager command (`$PAGER`, or `less -FRX`); `nil` pages nothing.
    public var pagerCommand: String?

    private var collecting = false
    private var held: [String] = []
    private var heldLines = 0
    private var pager: Pager?
    private var heldEvents: [String] = []
    private var stopped = false

    /// Creates the output.
    public init() {}

    /// Starts a REPL entry: results are held for the pager decision when `paging`.
    public func beginCommand(paging: Bool) {
        collecting = paging && pagerCommand != nil
        stopped = false
    }

    /// Ends a REPL entry: held results print, the pager (if one started) gets the end of its
    /// input and is waited for, events held meanwhile print.
    public func endCommand() {
        if let pager {
            pager.finish()
            self.pager = nil
        } else if !held.isEmpty {
            let text = held.joined()
            held = []
            emit(text)
        }
        held = []
        heldLines = 0
        collecting = false
        for event in heldEvents { StandardOutput.write(event, to: 1) }
        heldEvents = []
        stopped = false
    }

    public func write(_ text: String) {
        guard !stopped else { return }
        if let pager {
            pager.write(text)
            if pager.isClosed { stopped = true }
            return
        }
        guard collecting else {
            emit(text)
            return
        }
        held.append(text)
        heldLines += text.utf8.reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
        if heldLines >= Self.screenRows() - 1, let command = pagerCommand, let started = Pager(command: command) {
            pager = started
            let text = held.joined()
            held = []
            started.write(text)
            if started.isClosed { stopped = true }
        }
    }

    public func writeError(_ text: String) { StandardOutput.write(text, to: 2) }

    public func writeEvent(_ text: String) {
        if pager == nil, collecting, !held.isEmpty {
            // A result of this entry waits for the pager decision: an event after it (a watch's
            // first events, after its own line) must not overtake it (issue 37: at a terminal
            // `[1] child_added` printed before `[1] watching`). The result goes now, unpaged.
            let text = held.joined()
            held = []
            heldLines = 0
            collecting = false
            emit(text)
        }
        if pager != nil {
            heldEvents.append(text)
        } else if let editor, editor.isReading {
            editor.printAbove(text)
        } else {
            StandardOutput.write(text, to: 1)
        }
    }

    /// Prints results directly, in slices; Ctrl-C stops it.
    private func emit(_ text: String) {
        if !StandardOutput.write(text, to: STDOUT_FILENO, stoppingOnCtrlC: true) {
            stopped = true
            StandardOutput.write("\n^C (output stopped)\n", to: 2)
        }
    }

    /// The terminal's width, or 80 when it cannot be read.
    static func screenColumns() -> Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// The terminal's height, or 24 when it cannot be read.
    static func screenRows() -> Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return 24 }
        return Int(size.ws_row)
    }
}
