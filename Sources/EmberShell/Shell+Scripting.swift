import EmberEngine
import EmberClient
import EmberCore
import EmberLua
import EmberQL
import Foundation

/// Lua from the shell: `lua`, `run`, Lua mode, `-e`, scripts, plugin commands.
extension Shell {
    /// The session's Lua runtime, created on first use with the session's safety settings and
    /// limits.
    func scripting() throws(ShellError) -> LuaRuntime {
        if let luaRuntime { return luaRuntime }
        do {
            let configuration = LuaConfiguration(
                libraries: options.unsafeLua ? .all : .safe, instructionLimit: options.luaInstructionLimit,
                memoryLimit: options.luaMemoryLimit, observesInterruptSignal: true)
            let runtime = try LuaRuntime(ember: ember, configuration: configuration, host: self)
            let console = console
            runtime.lua.printHandler = { line in console.write(line + "\n") }
            luaRuntime = runtime
            return runtime
        } catch {
            throw .lua(error)
        }
    }

    /// Runs a chunk in the session's environment and prints what it returns.
    func runChunk(_ code: String, name: String) throws(ShellError) {
        let runtime = try scripting()
        let results: [LuaReturnValue]
        do {
            results = try runtime.run(code, name: name, in: .session)
        } catch {
            throw .lua(error)
        }
        printResults(results)
    }

    /// Prints what a chunk or a plugin command returned: one JSON array with `--json`; else
    /// the values separated by tabs, a table as pretty JSON when it is the only one.
    func printResults(_ results: [LuaReturnValue]) {
        guard !results.isEmpty else { return }
        if isJSON {
            printJSON(.array(results.map(Self.json)))
            return
        }
        if results.count == 1, case .json(let value) = results[0], value.isContainer {
            print(formatter.pretty(value))
            return
        }
        print(results.map(shown).joined(separator: "\t"))
    }

    /// Runs a Lua chunk typed in Lua mode or given with `-e`: an expression prints its value
    /// (as the Lua REPL does), a statement runs.
    /// - Returns: whether it succeeded.
    @discardableResult
    public func executeLua(_ code: String) -> Bool {
        defer { settle() }
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
        let source = try readScript(file.text, at: file.position)
        let runtime = try scripting()
        do {
            let results = try runtime.run(
                Self.strippingShebang(source), name: "@" + file.text,
                in: .script(name: file.text, arguments: arguments.map(\.text)))
            printResults(results)
        } catch {
            throw .lua(error)
        }
    }

    /// The text of the script file at `path`.
    func readScript(_ path: String, at position: SourcePosition? = nil) throws(ShellError) -> String {
        do {
            return try FileAccess.readText(path)
        } catch {
            throw .command(error.code, error.message, at: position)
        }
    }

    /// The source without a first `#!` line (kept as an empty line, so line numbers hold).
    static func strippingShebang(_ source: String) -> String {
        guard source.hasPrefix("#!") else { return source }
        return source.firstIndex(of: "\n").map { String(source[$0...]) } ?? ""
    }

    func listPlugins() {
        if isJSON {
            printJSON(.array(pluginCommands.map {
                .object([
                    ("plugin", .string($0.plugin)), ("command", .string($0.description.name)),
                    ("args", .string($0.description.syntax)), ("help", .string($0.description.summary)),
                ])
            }))
            return
        }
        if pluginCommands.isEmpty {
            print("no plugins loaded")
            return
        }
        for command in pluginCommands {
            let syntax = command.description.syntax.isEmpty ? "" : " " + command.description.syntax
            print("\(command.plugin): \(command.description.name)\(syntax)  " + style.dim(command.description.summary))
        }
    }

    func runPluginCommand(_ name: Word, arguments: Word?) throws(ShellError) {
        let lowered = name.text.lowercased()
        guard let command = pluginCommands.first(where: { $0.description.name.lowercased() == lowered }) else {
            let suggestion = Self.closest(to: name.text, in: commandRegistry.flatMap { [$0.name] + $0.aliases })
            throw .command(
                ErrorCode.unknownCommand, "unknown command '\(name.text)'" + (suggestion.map { " (did you mean \($0)?)" } ?? " (try help)"),
                at: name.position)
        }
        try command.run(arguments?.text ?? "")
    }

    /// A Lua result as JSON, for `--json`.
    static func json(_ value: LuaReturnValue) -> JSONValue {
        switch value {
        case .nil: .null
        case .json(let json): json
        case .text(let text): .string(text)
        }
    }

    /// A Lua result as the Lua REPL shows it: strings raw, other values as compact JSON.
    func shown(_ value: LuaReturnValue) -> String {
        switch value {
        case .nil: "nil"
        case .json(.string(let text)): text
        case .json(let json): formatter.compact(json)
        case .text(let text): text
        }
    }
}

extension JSONValue {
    /// Whether the value is an object or an array.
    var isContainer: Bool {
        switch self {
        case .object, .array: true
        default: false
        }
    }
}
