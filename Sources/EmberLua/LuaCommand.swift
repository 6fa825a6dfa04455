/// A shell command added by a script or plugin with `ember.command{ name =, args =, help =, run = }`.
public struct LuaCommand: Sendable {
    /// The command's name (a word: letters, digits, `-` and `_`).
    public let name: String
    /// Its arguments as help shows them (`args`, e.g. "COUNT"); may be empty.
    public let syntax: String
    /// Its one-line help (`help`).
    public let summary: String
    /// Where it came from: the plugin's file name, or "lua" for a command added at the prompt.
    public let origin: String
    /// The registry reference of its `run` function (owned by the runtime).
    let function: Int32
}
