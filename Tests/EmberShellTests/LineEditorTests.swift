import EmberShell
import Foundation
import Testing

/// The libedit line editor, driven without a terminal. Serialized: libedit reads terminal
/// capabilities through process-wide state while an editor is created.
@Suite(.serialized) struct LineEditorTests {
    /// An editor over `/dev/null`.
    private func makeDetachedEditor(historyLimit: Int = 1000) throws -> LineEditor {
        let null = open("/dev/null", O_RDWR)
        defer { close(null) }
        return try LineEditor(input: null, output: null, error: null, historyLimit: historyLimit)
    }

    @Test func createsAndFreesWithoutATerminal() throws {
        let editor = try makeDetachedEditor()
        #expect(editor.keyBindings == "emacs")
        #expect(!editor.isTerminal)
        editor.prompt = "main:/> "
        #expect(editor.prompt == "main:/> ")
        #expect(editor.readLine() == nil)
    }

    @Test func readsLinesFromAPipe() throws {
        let input = TestPipe(holding: "get /users\n\nset /a {b: 1}\nlast line without newline")
        let output = TestPipe()
        do {
            let editor = try LineEditor(input: input.readEnd, output: output.writeEnd, error: output.writeEnd)
            editor.prompt = "main:/> "
            #expect(editor.readLine() == "get /users")
            #expect(editor.readLine() == "")
            #expect(editor.readLine() == "set /a {b: 1}")
            #expect(editor.readLine() == "last line without newline")
            #expect(editor.readLine() == nil)
        }
        output.closeWriteEnd()
        // the editor closed its own copies of the descriptors: the output reaches end of file,
        // and, the input not being a terminal, no prompt was drawn
        #expect(output.readAvailable() == "")
    }

    @Test func drawsThePromptAndEditsOnATerminal() throws {
        let pty = try #require(PseudoTerminal())
        let editor = try LineEditor(input: pty.terminal, output: pty.terminal, error: pty.terminal)
        #expect(editor.isTerminal)
        editor.prompt = "alice:/users> "
        // typed keys: "get x", Backspace (^H), "/al", Enter; typed once the editor has drawn its
        // prompt (keys typed before it has the terminal are echoed by the terminal itself, in
        // its normal mode: the test failed so on a loaded machine)
        let typist = PromptTypist(pty, waitingFor: "alice:/users> ", keys: "get x\u{8}/al\n")
        #expect(editor.readLine() == "get /al")
        let screen = typist.finish() + pty.screen()
        #expect(screen.contains("alice:/users> get x"))
        #expect(screen.hasSuffix("/al\r\n"))
    }

    @Test func historyKeepsEntriesOldestFirst() throws {
        let editor = try makeDetachedEditor()
        #expect(editor.historyEntries == [])
        for line in ["get /a", "set /b 2", "ls /"] {
            try editor.addHistory(line)
        }
        #expect(editor.historyEntries == ["get /a", "set /b 2", "ls /"])
        #expect(editor.historyCount == 3)
        editor.clearHistory()
        #expect(editor.historyEntries == [])
        #expect(editor.historyCount == 0)
    }

    @Test func historyDropsConsecutiveDuplicates() throws {
        let editor = try makeDetachedEditor()
        for line in ["x", "x", "y", "x"] {
            try editor.addHistory(line)
        }
        #expect(editor.historyEntries == ["x", "y", "x"])
    }

    @Test func historyLimitDropsTheOldestEntries() throws {
        let editor = try makeDetachedEditor(historyLimit: 3)
        for number in 1...5 {
            try editor.addHistory("get /\(number)")
        }
        #expect(editor.historyEntries == ["get /3", "get /4", "get /5"])
        editor.historyLimit = 2
        try editor.addHistory("get /6")
        #expect(editor.historyEntries == ["get /5", "get /6"])
    }

    @Test func historySurvivesSaveAndLoad() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ember-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("history").path

        let entries = ["get /users", "set /a\t{b: 'two words'}", "lua for i = 1, 2 do\n  print(i)\nend"]
        do {
            let editor = try makeDetachedEditor()
            for entry in entries {
                try editor.addHistory(entry)
            }
            try editor.saveHistory(to: path)
        }
        let saved = try String(contentsOfFile: path, encoding: .utf8)
        #expect(saved.hasPrefix("_HiStOrY_V2_\n"))
        #expect(saved.contains(#"get\040/users"#))

        let reloaded = try makeDetachedEditor()
        try reloaded.loadHistory(from: path)
        #expect(reloaded.historyEntries == entries)
    }

    @Test func historyFileErrorsNameThePath() throws {
        let editor = try makeDetachedEditor()
        let missing = "/nonexistent-ember-dir/history"
        let saveError = try #require(throws: LineEditorError.self) { try editor.saveHistory(to: missing) }
        #expect(saveError.message == "cannot save the history to /nonexistent-ember-dir/history")
        let loadError = try #require(throws: LineEditorError.self) { try editor.loadHistory(from: missing) }
        #expect(loadError.message == "cannot load the history from /nonexistent-ember-dir/history")
    }

    @Test func invalidDescriptorIsReported() throws {
        let error = try #require(throws: LineEditorError.self) {
            try LineEditor(input: -1, output: 1, error: 2)
        }
        #expect(error.message == "cannot open file descriptor -1: Bad file descriptor")
    }
}

/// Types `keys` at a pseudo-terminal from a thread of its own once `prompt` has been drawn
/// (at most 10 s), keeping what it read for the test.
final class PromptTypist: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var seen = ""

    init(_ pty: PseudoTerminal, waitingFor prompt: String, keys: String) {
        let master = pty.master
        Thread.detachNewThread { [self] in
            let deadline = Date().addingTimeInterval(10)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !seen.contains(prompt), Date() < deadline {
                var request = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&request, 1, 20) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
                if count > 0 { seen += String(decoding: buffer[..<count], as: UTF8.self) }
            }
            let bytes = Array(keys.utf8)
            _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
            done.signal()
        }
    }

    /// What the terminal showed before the keys were typed.
    func finish() -> String {
        done.wait()
        return seen
    }
}
