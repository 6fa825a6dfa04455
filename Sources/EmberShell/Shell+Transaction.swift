import EmberClient
import EmberCore
import EmberLua
import EmberQL

/// `transaction PATH FUNCTION`: a Lua function computes the new value from the current one.
extension Shell {
    func transaction(_ expression: PathExpression, function: Word) throws(ShellError) {
        _ = try resolve(expression)
        throw .command("not_built", "transaction needs the Lua value bridge (landing next)", at: function.position)
    }

    /// Gives a new Lua state the shell's hooks (print to the shell's output).
    func configure(_ state: LuaState) {}
}
