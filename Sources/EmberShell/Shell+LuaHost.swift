import EmberClient
import EmberCore
import EmberLua
import EmberQL
import Foundation

/// The shell as the Lua runtime's host: `db`, `ember.exec`, `ember.command`, and errors in
/// callbacks.
extension Shell: LuaHost {
    public var currentDatabase: Database { database }

    /// Runs `command` with its output captured in JSON form, and returns the documents it
    /// printed: one as itself, several as an array, none as `null`. A failure keeps the
    /// command's code (`syntax_error`, `invalid_path`...).
    public func execute(command: String) throws(LuaHostError) -> JSONValue {
        let capture = ExecOutput(console: console)
        let previousOutput = output
        let previousMode = outputMode
        output = capture
        outputMode = .json
        let succeeded = execute(command)
        output = previousOutput
        outputMode = previousMode
        guard succeeded else {
            let reported = (try? JSONValue(parsing: capture.errors.trimmingCharacters(in: .whitespacesAndNewlines)))
            if case .object(let members)? = reported, case .object(let error)? = members.first(where: { $0.key == "error" })?.value,
                case .string(let message)? = error.first(where: { $0.key == "message" })?.value
            {
                var code = ErrorCode.internalError
                if case .string(let reportedCode)? = error.first(where: { $0.key == "code" })?.value { code = reportedCode }
                throw LuaHostError(code: code, "'\(command)': \(message)")
            }
            throw LuaHostError(code: ErrorCode.internalError, "'\(command)' failed")
        }
        let documents = capture.text.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
        switch documents.count {
        case 0: return .null
        case 1: return documents[0]
        default: return .array(documents)
        }
    }

    /// Adds a plugin command to the registry (replacing one of the same name).
    public func register(_ command: LuaCommand) throws(LuaHostError) {
        let lowered = command.name.lowercased()
        if CommandDescription.builtins.contains(where: { $0.name.lowercased() == lowered || $0.aliases.contains { $0.lowercased() == lowered } }) {
            throw LuaHostError(code: ErrorCode.reservedName, "'\(command.name)' is a built-in command")
        }
        let description = CommandDescription(
            name: command.name, syntax: command.syntax, summary: command.summary.isEmpty ? "(added by \(command.origin))" : command.summary,
            example: command.name, group: "Plugins")
        let plugin = PluginCommand(description: description, plugin: command.origin) { [unowned self] arguments throws(ShellError) in
            let runtime = try scripting()
            do throws(LuaError) {
                printResults(try runtime.runCommand(command, arguments: arguments))
            } catch {
                throw .lua(error)
            }
        }
        pluginCommands.removeAll { $0.description.name.lowercased() == lowered }
        pluginCommands.append(plugin)
    }

    /// Prints an error from a listener, a completion callback or `onComplete`, with where it
    /// happened and its traceback.
    public func report(_ error: LuaError, context: String) {
        report(.lua(LuaError(error.kind, message: "\(context): \(error.message)", traceback: error.traceback, code: error.code)))
    }
}
