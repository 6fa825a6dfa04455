import CEditLine
import EmberEngine
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
    /// Whether ``read()`` is waiting for the user now (events then print above the prompt).
    public private(set) var isReading = false
    /// Set when Ctrl-C ended the read.
    private var interrupted = false

    /// Called while waiting for a key, at least every ``idleInterval`` milliseconds (sooner when
    /// ``nextWake`` says so): the shell runs its engine here, so events print as they happen.
    public var idle: (() -> Void)?
    /// When ``idle`` next wants to run, in milliseconds from now; `nil` means no sooner than
    /// ``idleInterval``.
    public var nextWake: (() -> Int?)?
    /// A descriptor polled with the input: when it is readable, ``idle`` runs at once (the
    /// engine's ``Engine/wakeDescriptor``, readable while other threads' work waits).
    public var wakeDescriptor: Int32?
    /// The longest wait for a key between two calls of ``idle``, in milliseconds.
    public var idleInterval: Int = 250
    /// Offers completions for the text before the cursor (Tab).
    public var completer: ((String) -> LineCompletion)?

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
            let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
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
        _ = ember_el_set_getcfn(editLine) { editLine, character in
            guard let editLine, let character else { return -1 }
            let owner = Unmanaged<LineEditor>.fromOpaque(ember_el_get_clientdata(editLine)!).takeUnretainedValue()
            return owner.readCharacter(into: character)
        }
        _ = ember_el_add_function(editLine, "ember-complete", "complete the word before the cursor") { editLine, _ in
            guard let editLine else { return UInt8(CC_ERROR) }
            let owner = Unmanaged<LineEditor>.fromOpaque(ember_el_get_clientdata(editLine)!).takeUnretainedValue()
            return owner.complete()
        }
        _ = ember_el_set_editor(editLine, "emacs")
        _ = ember_el_bind(editLine, "^I", "ember-complete")
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
    /// at the end of the input (Ctrl-D on an empty line) or after Ctrl-C.
    public func readLine() -> String? {
        if case .line(let text) = read() { return text }
        return nil
    }

    /// Reads one line, showing the prompt when editing, running ``idle`` while waiting.
    public func read() -> LineEditorInput {
        var count: Int32 = 0
        interrupted = false
        isReading = true
        let line = el_gets(editLine, &count)
        isReading = false
        if interrupted {
            interrupted = false
            write("^C\n")
            return .interrupted
        }
        guard let line, count > 0 else { return .endOfInput }
        var text = String(cString: line)
        if text.hasSuffix("\n") { text.removeLast() }
        return .line(text)
    }

    /// Prints `text` (whole lines) above the prompt and the line being typed, then draws them
    /// again; when not reading, just prints it.
    public func printAbove(_ text: String) {
        guard isReading, isTerminal else {
            write(text)
            return
        }
        write("\r\u{1B}[K" + text)
        _ = ember_el_refresh(editLine)
    }

    /// Shows `prompt` from the next line on and, while a line is being read at a terminal,
    /// draws the line being typed again behind it at once.
    public func redraw(prompt newPrompt: String) {
        guard newPrompt != prompt else { return }
        prompt = newPrompt
        guard isReading, isTerminal else { return }
        write("\r\u{1B}[K")
        _ = ember_el_refresh(editLine)
    }

    /// Writes `text` to the editor's output now.
    public func write(_ text: String) {
        fputs(text, streams[1])
        fflush(streams[1])
    }

    /// The editor's character reader: waits for input with `poll`, running ``idle`` meanwhile;
    /// Ctrl-C (SIGINT) ends the read as interrupted. Decodes UTF-8.
    private func readCharacter(into character: UnsafeMutablePointer<wchar_t>) -> Int32 {
        let byte: UInt8
        switch readByte(runningIdle: true) {
        case .byte(let first): byte = first
        case .interrupted:
            interrupted = true
            return 0
        case .end: return 0
        case .failed: return -1
        }
        var bytes = [byte]
        let length = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4
        var next: UInt8 = 0
        while bytes.count < length {
            guard Glibc.read(fileno(streams[0]), &next, 1) == 1 else { break }
            bytes.append(next)
        }
        let scalar = String(decoding: bytes, as: UTF8.self).unicodeScalars.first ?? "\u{FFFD}"
        character.pointee = wchar_t(bitPattern: scalar.value)
        return 1
    }

    /// What reading one byte of input came to.
    private enum ByteRead {
        case byte(UInt8)
        /// Ctrl-C arrived (the flag is consumed).
        case interrupted
        case end
        case failed
    }

    /// Waits for one byte of input with `poll`; Ctrl-C (SIGINT) ends the wait. With
    /// `runningIdle`, ``idle`` runs while nothing is typed, woken in time for ``nextWake``.
    private func readByte(runningIdle: Bool) -> ByteRead {
        let descriptor = fileno(streams[0])
        while true {
            if InterruptSignal.isPending {
                InterruptSignal.clear()
                return .interrupted
            }
            var requests = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            if runningIdle, let wakeDescriptor { requests.append(pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)) }
            let wait = runningIdle ? min(max(nextWake?() ?? idleInterval, 0), idleInterval) : idleInterval
            let ready = poll(&requests, nfds_t(requests.count), Int32(wait))
            if ready < 0 {
                if errno == EINTR { continue }
                return .failed
            }
            if ready == 0 || requests[0].revents == 0 {
                if runningIdle { idle?() }
                continue
            }
            var byte: UInt8 = 0
            let count = Glibc.read(descriptor, &byte, 1)
            if count < 0 {
                if errno == EINTR { continue }
                return .failed
            }
            return count == 0 ? .end : .byte(byte)
        }
    }

    /// Tab: completes the word before the cursor, or lists the candidates.
    private func complete() -> UInt8 {
        guard let completer, let info = el_line(editLine) else { return UInt8(CC_ERROR) }
        let length = info.pointee.cursor - info.pointee.buffer
        let prefix = String(decoding: UnsafeRawBufferPointer(start: info.pointee.buffer, count: length), as: UTF8.self)
        let completion = completer(prefix)
        let candidates = completion.candidates
        guard !candidates.isEmpty else { return UInt8(CC_REFRESH_BEEP) }
        if candidates.count == 1 {
            replace(completion.partial, with: candidates[0] + (completion.appendsSpace ? " " : ""))
            return UInt8(CC_REFRESH)
        }
        let common = completion.commonPrefix
        if common.count > completion.partial.count {
            replace(completion.partial, with: common)
            return UInt8(CC_REFRESH)
        }
        // thousands of candidates (the children of a big location) ask first, as readline does
        // beyond its `completion-query-items` (100)
        if candidates.count > Self.completionQueryItems {
            write("\nDisplay all \(candidates.count) possibilities? (y or n)")
            guard case .byte(let answer) = readByte(runningIdle: false),
                answer == UInt8(ascii: "y") || answer == UInt8(ascii: "Y") || answer == UInt8(ascii: " ")
            else {
                write("\n")
                return UInt8(CC_REDISPLAY)
            }
        }
        // list them in columns under the line, then draw the prompt again
        let width = (candidates.map(\.count).max() ?? 0) + 2
        let perRow = max(1, 80 / width)
        var text = "\n"
        for (index, candidate) in candidates.enumerated() {
            text += candidate + String(repeating: " ", count: width - candidate.count)
            if index % perRow == perRow - 1 || index == candidates.count - 1 { text += "\n" }
        }
        write(text)
        return UInt8(CC_REDISPLAY)
    }

    /// How many candidates Tab lists without asking first (readline's default).
    static let completionQueryItems = 100

    /// Replaces the `partial` word before the cursor with `word`.
    private func replace(_ partial: String, with word: String) {
        if !partial.isEmpty { el_deletestr(editLine, Int32(partial.unicodeScalars.count)) }
        _ = el_insertstr(editLine, word)
    }
}
