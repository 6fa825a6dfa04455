import EmberClient
import EmberCore
import EmberLua
import EmberQL
import Foundation

/// Lua from the shell: `lua`, `run`, `transaction`, plugin commands.
extension Shell {
    /// The session's Lua state, created on first use with the session's safety settings.
    func lua() throws(ShellError) -> LuaState {
        if let luaState { return luaState }
        do {
            let state = try LuaState(configuration: LuaConfiguration(
                libraries: options.unsafeLua ? .all : .safe, observesInterruptSignal: true))
            configure(state)
            luaState = state
            return state
        } catch {
            throw .lua(error)
        }
    }

    /// Runs a chunk of Lua and prints what it returns.
    func runChunk(_ code: String, name: String) throws(ShellError) {
        let state = try lua()
        let results: [LuaValue]
        do {
            results = try state.run(chunk: code, name: name)
        } catch {
            throw .lua(error)
        }
        guard !results.isEmpty else { return }
        if isJSON {
            printJSON(.array(results.map(Self.json)))
        } else {
            print(results.map(Self.shown).joined(separator: "\t"))
        }
    }

    /// Runs a Lua chunk typed in Lua mode or given with `-e`: an expression prints its value
    /// (as the Lua REPL does), a statement runs.
    /// - Returns: whether it succeeded.
    @discardableResult
    public func executeLua(_ code: String) -> Bool {
        InterruptSignal.clear()
        do {
            do {
                // an expression prints its value; a statement does not compile with `return`
                try runChunk("return " + code, name: "=lua")
            } catch .lua(let error) where error.kind == .syntax {
                try runChunk(code, name: "=lua")
            }
            return true
        } catch {
            report(error)
            return false
        }
    }

    func runLua(_ code: Word?) throws(ShellError) {
        guard let code else {
            luaModeRequested = true
            return
        }
        try runChunk(code.text, name: "=lua")
    }

    func runScript(_ file: Word, arguments: [Word]) throws(ShellError) {
        let source: String
        guard FileManager.default.fileExists(atPath: file.text) else {
            throw .command("io_error", "cannot read \(file.text): no such file", at: file.position)
        }
        do {
            source = try String(contentsOfFile: file.text, encoding: .utf8)
        } catch {
            throw .command("io_error", "cannot read \(file.text): \(error.localizedDescription)", at: file.position)
        }
        try runChunk(Self.strippingShebang(source), name: "@" + file.text)
    }

    /// The source without a first `#!` line (kept as an empty line, so line numbers hold).
    static func strippingShebang(_ source: String) -> String {
        guard source.hasPrefix("#!") else { return source }
        return source.firstIndex(of: "\n").map { String(source[$0...]) } ?? ""
    }

    func listPlugins() {
        if isJSON {
            printJSON(.array(pluginCommands.map { .object([("plugin", .string($0.plugin)), ("command", .string($0.description.name))]) }))
            return
        }
        if pluginCommands.isEmpty {
            print("no plugins loaded")
            return
        }
        for command in pluginCommands {
            print("\(command.plugin): \(command.description.name) \(command.description.syntax)  " + style.dim(command.description.summary))
        }
    }

    func runPluginCommand(_ name: Word, arguments: Word?) throws(ShellError) {
        let lowered = name.text.lowercased()
        guard let command = pluginCommands.first(where: { $0.description.name.lowercased() == lowered }) else {
            let suggestion = Self.closest(to: name.text, in: commandRegistry.flatMap { [$0.name] + $0.aliases })
            throw .command(
                "unknown_command", "unknown command '\(name.text)'" + (suggestion.map { " (did you mean \($0)?)" } ?? " (try help)"),
                at: name.position)
        }
        try command.run(arguments?.text ?? "")
    }

    /// A Lua result as JSON, for `--json`.
    static func json(_ value: LuaValue) -> JSONValue {
        switch value {
        case .nil: .null
        case .boolean(let flag): .bool(flag)
        case .integer(let number): .int(number)
        case .number(let number): .double(number)
        case .string(let text): .string(text)
        case .other(let typeName): .string(typeName)
        }
    }

    /// A Lua result as the Lua REPL shows it.
    static func shown(_ value: LuaValue) -> String {
        switch value {
        case .nil: "nil"
        case .boolean(let flag): flag ? "true" : "false"
        case .integer(let number): String(number)
        case .number(let number): "\(number)"
        case .string(let text): text
        case .other(let typeName): typeName
        }
    }
}
