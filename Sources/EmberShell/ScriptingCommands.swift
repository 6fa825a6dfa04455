import EmberQL

/// Lua: a chunk, a script file, and the plugins' commands.
enum ScriptingCommands: CommandFamily {
    static let name = "scripting"

    static func action(for command: Command) -> CommandAction? {
        switch command {
        case .lua(let code): { shell throws(ShellError) in try shell.runLua(code) }
        case .run(let file, let arguments): { shell throws(ShellError) in try shell.runScript(file, arguments: arguments) }
        case .plugins: { shell in shell.listPlugins() }
        case .plugin(let name, let arguments): { shell throws(ShellError) in try shell.runPluginCommand(name, arguments: arguments) }
        default: nil
        }
    }
}
