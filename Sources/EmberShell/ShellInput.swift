/// One thing the command line asks the shell to run before (or instead of) the REPL, in the
/// order given: `ember -e A -c B -e C` runs A, B, C.
public enum ShellInput: Sendable, Hashable {
    /// A shell command (`-c`).
    case command(String)
    /// A Lua chunk (`-e`).
    case lua(String)
}
