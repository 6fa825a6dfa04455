import EmberLua
import EmberQL

/// A command a plugin added to the shell (`ember.command{...}` in Lua): listed by `help` and
/// `plugins`, completed like a built-in, run with the rest of its line.
public struct PluginCommand {
    /// Its name, syntax, summary and example, as `help` shows them.
    public var description: CommandDescription
    /// The plugin file that added it.
    public var plugin: String
    /// Runs it with the text after the name (empty when none); returns what it returned.
    public var run: (String) throws(ShellError) -> [LuaReturnValue]

    /// Creates a plugin command.
    public init(description: CommandDescription, plugin: String, run: @escaping (String) throws(ShellError) -> [LuaReturnValue]) {
        self.description = description
        self.plugin = plugin
        self.run = run
    }
}
