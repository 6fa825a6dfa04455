import EmberCore
import EmberEngine
import EmberInstance
import EmberLua
import Foundation
import Glibc

/// The interactive loop: reads entries with the line editor (history, completion, multi-line
/// entries), runs them in the shell, and keeps the engine running while it waits, so events
/// print above the prompt as they happen.
public final class Repl {
    /// The session.
    public let shell: Shell
    /// The editor.
    public let editor: LineEditor
    /// Where the history is kept between runs, or `nil` for none.
    public let historyFile: String?
    /// Whether the REPL reads Lua chunks (`lua` alone) rather than commands.
    public private(set) var luaMode = false
    /// Whether the editor shows the shell's own prompt (not Lua's, nor an entry's next line).
    private var atMainPrompt = false

    /// Creates a REPL for `shell` reading with `editor`; loads the history from `historyFile`.
    public init(shell: Shell, editor: LineEditor, historyFile: String?) {
        self.shell = shell
        self.editor = editor
        self.historyFile = historyFile
        if let historyFile, FileManager.default.fileExists(atPath: historyFile) {
            try? editor.loadHistory(from: historyFile)
        }
        editor.completer = { [unowned self, unowned shell] prefix in
            luaMode ? shell.luaCompletions(for: prefix) : shell.completions(for: prefix)
        }
        editor.idle = { [unowned self, unowned shell, unowned editor] in
            shell.engine.runDue()
            // The prompt follows the connection's state while it waits (issue 37: it still said
            // `main:/>` after the server had gone).
            if atMainPrompt { editor.redraw(prompt: shell.prompt) }
        }
        editor.nextWake = { [unowned shell] in
            shell.engine.nextDueTime.map { Int(clamping: max(0, $0 - shell.engine.now)) }
        }
        // Work from other threads (a remote server's messages, other terminals' requests) wakes
        // the prompt at once.
        editor.wakeDescriptor = shell.engine.wakeDescriptor
        shell.historyEntries = { [unowned editor] in editor.historyEntries }
        shell.confirm = { [unowned editor] question in
            editor.write(question)
            let previous = editor.prompt
            editor.prompt = ""
            defer { editor.prompt = previous }
            guard case .line(let answer) = editor.read() else { return false }
            return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
        }
    }

    /// The path of the history file: `$XDG_STATE_HOME/ember/history`, or
    /// `~/.local/state/ember/history`.
    public static func defaultHistoryFile(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return state + "/ember/history"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "."
        return home + "/.local/state/ember/history"
    }

    /// Runs until `exit`, or Ctrl-D at an empty prompt.
    /// - Returns: the exit status: 0 (a failed command does not make an interactive session
    ///   fail; scripts and `-c` do).
    public func run() -> Int32 {
        var entry: String?
        while !shell.state.exitRequested {
            shell.engine.runDue()
            editor.prompt = entry == nil ? (luaMode ? "lua> " : shell.prompt) : continuationPrompt
            atMainPrompt = entry == nil && !luaMode
            defer { atMainPrompt = false }
            switch editor.read() {
            case .endOfInput:
                if entry != nil {
                    entry = nil
                    editor.write("\n")
                    continue
                }
                if luaMode {
                    // Ctrl-D leaves Lua mode, as .q does; a second one leaves the shell.
                    luaMode = false
                    editor.write("\nback to commands\n")
                    continue
                }
                editor.write("\n")
                return 0
            case .interrupted:
                entry = nil
                continue
            case .line(let line):
                let text = entry.map { $0 + "\n" + line } ?? line
                if luaMode && entry == nil {
                    switch text.trimmingCharacters(in: .whitespaces) {
                    case ".q":
                        luaMode = false
                        continue
                    case "exit", "quit", "\\q":
                        // Not Lua: the shell's own way out, at either prompt.
                        remember(text)
                        _ = shell.execute("exit")
                        continue
                    default:
                        break
                    }
                }
                let complete = luaMode ? shell.luaChunkIsComplete(text) : shell.isComplete(text)
                if !complete {
                    entry = text
                    continue
                }
                entry = nil
                if text.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                remember(text)
                let terminal = shell.output as? TerminalOutput
                terminal?.beginCommand(paging: shell.state.pagerEnabled)
                shell.state.holdsTiming = true
                _ = luaMode ? shell.executeLua(text) : shell.execute(text)
                terminal?.endCommand()
                shell.state.holdsTiming = false
                if let line = shell.state.heldTiming {
                    shell.state.heldTiming = nil
                    shell.output.writeError(line)
                }
                // a Ctrl-C typed while the entry ran was the entry's: it must not also clear the
                // next prompt (an extra ^C and a second prompt)
                shell.engine.clearInterrupt()
                if shell.state.luaModeRequested {
                    shell.state.luaModeRequested = false
                    luaMode = true
                    editor.write("Lua mode: each line is a Lua chunk; .q or Ctrl-D returns to commands, exit leaves\n")
                }
            }
        }
        return shell.state.exitStatus
    }

    /// The prompt for the next line of an unfinished entry, as wide as the main prompt.
    private var continuationPrompt: String {
        let width = (luaMode ? "lua> " : shell.prompt).count
        return String(repeating: " ", count: max(width - 4, 0)) + "... "
    }

    /// Adds an entry to the history (one item, even when it spans lines) and saves the history.
    private func remember(_ entry: String) {
        try? editor.addHistory(entry)
        guard let historyFile else { return }
        let directory = (historyFile as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try? editor.saveHistory(to: historyFile)
    }
}
