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
            let output = output
            // what a script prints streams as it happens, as events do: only results are held
            // for the pager (issue 37: a ticker printed nothing until it ended)
            runtime.lua.printHandler = { line in output.writeEvent(line + "\n") }
            // other processes on the directory are answered while a script runs
            runtime.service = { [weak self] in self?.serveWhileScriptRuns() }
            luaRuntime = runtime
            return runtime
        } catch {
            throw .lua(error)
        }
    }

    /// Runs a chunk in the session's environment and returns what it returned.
    func runChunk(_ code: String, name: String) throws(ShellError) -> CommandResult {
        let runtime = try scripting()
        do {
            return .values(try runtime.run(code, name: name, in: .session))
        } catch {
            throw .lua(error)
        }
    }

    /// Runs a Lua chunk typed in Lua mode or given with `-e`. In Lua mode an expression prints
    /// its value (as the Lua REPL does) and a statement runs. With `-e` (`asStatement`) the
    /// chunk runs as a statement first, as `lua -e` runs it: a call prints nothing of what it
    /// returns (issue 37: `-e "db:ref('y'):set(1)"` printed `WriteHandle(...)` on standard
    /// output); only a chunk that is nothing but an expression (`-e "1 + 1"`), or says
    /// `return`, prints its value.
    /// - Returns: whether it succeeded.
    @discardableResult
    public func executeLua(_ code: String, asStatement: Bool = false) -> Bool {
        do {
            let result: CommandResult
            if asStatement {
                result = try runStatementOrExpression(code)
            } else {
                do {
                    // an expression prints its value; a statement does not compile with `return`
                    result = try runChunk("return " + code, name: "=lua")
                } catch .lua(let error) where error.kind == .syntax {
                    result = try runChunk(code, name: "=lua")
                }
            }
            settle()
            show(result)
            return true
        } catch {
            settle()
            report(error)
            return false
        }
    }

    /// Runs `code` as a statement; when it is not one, as the value of a `return` (an
    /// expression). A chunk that is neither reports the statement's syntax error (nothing ran:
    /// it did not compile).
    private func runStatementOrExpression(_ code: String) throws(ShellError) -> CommandResult {
        let statementError: LuaError
        do {
            return try runChunk(code, name: "=lua")
        } catch {
            guard case .lua(let lua) = error, lua.kind == .syntax else { throw error }
            statementError = lua
        }
        do {
            return try runChunk("return " + code, name: "=lua")
        } catch {
            guard case .lua(let lua) = error, lua.kind == .syntax else { throw error }
            throw .lua(statementError)
        }
    }

    func runLua(_ code: Word?) throws(ShellError) -> CommandResult {
        guard let code else {
            state.luaModeRequested = true
            return .nothing
        }
        return try runChunk(code.text, name: "=lua")
    }

    func runScript(_ file: Word, arguments: [Word]) throws(ShellError) -> CommandResult {
        let source = try readScript(file.text, at: file.position)
        let runtime = try scripting()
        do {
            return .values(try runtime.run(
                Self.strippingShebang(source), name: "@" + file.text,
                in: .script(name: file.text, arguments: arguments.map(\.text))))
        } catch {
            throw .lua(error)
        }
    }

    /// The text of the script file at `path`.
    func readScript(_ path: String, at position: SourcePosition? = nil) throws(ShellError) -> String {
        do {
            return try FileAccess.readText(FileAccess.expandingHome(path))
        } catch {
            throw .command(error.code, error.message, at: position)
        }
    }

    /// The source without a first `#!` line (kept as an empty line, so line numbers hold).
    static func strippingShebang(_ source: String) -> String {
        guard source.hasPrefix("#!") else { return source }
        return source.firstIndex(of: "\n").map { String(source[$0...]) } ?? ""
    }

    func listPlugins() -> CommandResult {
        let json = JSONValue.array(pluginCommands.map {
            .object([
                ("plugin", .string($0.plugin)), ("command", .string($0.description.name)),
                ("args", .string($0.description.syntax)), ("help", .string($0.description.summary)),
            ])
        })
        if pluginCommands.isEmpty { return .report(text: "no plugins loaded", json: json) }
        let lines = pluginCommands.map { command in
            let syntax = command.description.syntax.isEmpty ? "" : " " + command.description.syntax
            return "\(command.plugin): \(command.description.name)\(syntax)  " + style.dim(command.description.summary)
        }
        return .report(text: lines.joined(separator: "\n"), json: json)
    }

    func runPluginCommand(_ name: Word, arguments: Word?) throws(ShellError) -> CommandResult {
        let lowered = name.text.lowercased()
        guard let command = pluginCommands.first(where: { $0.description.name.lowercased() == lowered }) else {
            let suggestion = Self.closest(to: name.text, in: commandRegistry.flatMap { [$0.name] + $0.aliases })
            throw .command(
                ErrorCode.unknownCommand, "unknown command '\(name.text)'" + (suggestion.map { " (did you mean \($0)?)" } ?? " (try help)"),
                at: name.position)
        }
        return .values(try command.run(arguments?.text ?? ""))
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
