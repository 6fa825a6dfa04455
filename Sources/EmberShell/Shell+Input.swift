import EmberLua
import EmberQL
import Foundation

/// Running many entries: `-c` commands, command files, standard input.
extension Shell {
    /// Runs `lines` as entries: a line that leaves a `{`, `[`, `(` or string open (or an
    /// unfinished Lua chunk after `lua`/`transaction`) continues on the next. Stops at the
    /// first entry that fails, or at `exit`.
    /// - Returns: whether every entry succeeded.
    /// - Parameter file: the file the lines come from, named with the line in an error.
    public func runLines(_ lines: some Sequence<String>, file: String? = nil) -> Bool {
        var entry: String?
        var entryStart = 1
        var number = 0
        for line in lines {
            number += 1
            if entry == nil { entryStart = number }
            let text = entry.map { $0 + "\n" + line } ?? line
            if !isComplete(text) {
                entry = text
                continue
            }
            entry = nil
            if !execute(text, from: file.map { InputOrigin(file: $0, line: entryStart) }) { return false }
            if state.exitRequested { return true }
        }
        if let entry {
            // the input ended inside an entry: run it to report what is missing
            return execute(entry, from: file.map { InputOrigin(file: $0, line: entryStart) })
        }
        return true
    }

    /// Whether `entry` is finished: brackets and strings closed, and for `lua CODE` and
    /// `transaction PATH FUNCTION` a complete Lua chunk.
    public func isComplete(_ entry: String) -> Bool {
        guard CommandParser.isComplete(entry) else { return false }
        guard let code = Self.luaCode(in: entry) else { return true }
        return luaChunkIsComplete(code)
    }

    /// The Lua code of a `lua CODE` or `transaction PATH FUNCTION` entry (also after `as NAME`),
    /// as the parser cuts it; a function is checked as the expression `return FUNCTION`.
    static func luaCode(in entry: String) -> String? {
        func code(of command: Command) -> String? {
            switch command {
            case .lua(let code): code?.text
            case .transaction(_, let function): "return " + function.text
            case .as(_, let inner): code(of: inner)
            default: nil
            }
        }
        return (try? CommandParser.parse(entry)).flatMap { $0 }.flatMap(code)
    }

    /// Whether a Lua chunk is complete (not cut off in the middle of a block or expression).
    func luaChunkIsComplete(_ code: String) -> Bool {
        guard let state = try? scripting().lua else { return true }
        return state.isComplete(code)
    }

    /// Runs a command file: Lua when its name ends in `.lua`, else shell commands line by line.
    public func runFile(_ path: String, arguments: [String] = []) -> Bool {
        if path.hasSuffix(".lua") {
            do {
                _ = try runScript(Word(path, at: .start), arguments: arguments.map { Word($0, at: .start) })
                return true
            } catch {
                report(error)
                return false
            }
        }
        let text: String
        do {
            text = try FileAccess.readText(path)
        } catch {
            report(.command(error.code, error.message))
            return false
        }
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return runLines(lines, file: path)
    }
}
