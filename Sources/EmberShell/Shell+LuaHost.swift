import EmberClient
import EmberCore
import EmberLua
import EmberQL

/// The shell as the Lua runtime's host: `db`, `ember.exec`, `ember.command`, and errors in
/// callbacks.
extension Shell: LuaHost {
    public var currentDatabase: Database { database }

    /// Runs `command` and returns its result as data (the JSON form `--json` prints; `null`
    /// when it has none). Its events print as they happen; notes for people do not. A failure
    /// keeps the command's code (`syntax_error`, `invalid_path`...) and message.
    public func execute(command: String) throws(LuaHostError) -> JSONValue {
        let wasRunningForScript = state.runningForScript
        state.runningForScript = true
        defer {
            state.runningForScript = wasRunningForScript
            releaseHeldEvents()
        }
        do throws(ShellError) {
            guard let parsed = try parse(command) else { return .null }
            return try perform(parsed).json ?? .null
        } catch {
            let explained = explained(error)
            throw LuaHostError(code: explained.code, "'\(command)': \(explained.message)")
        }
    }

    /// `ember.exit(status)`: the run ends with `status` once the script has stopped.
    public func requestExit(status: Int32) {
        state.exitRequested = true
        state.exitStatus = status
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
                return try runtime.runCommand(command, arguments: arguments)
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
