/// Which global environment a chunk runs in.
public enum LuaEnvironment: Sendable, Equatable {
    /// The session's: shared by REPL lines, `lua CODE`, `-e` chunks and the rc file, so globals
    /// defined in one are seen by the next. `db` is the shell's current client each time.
    case session
    /// A fresh one for a script file, over the read-only base, with `arg` holding `arguments`
    /// (`arg[0]` the script's name).
    case script(name: String, arguments: [String])
}
