import CLua
import CLuaSupport

/// Telling a finished chunk from one the REPL should keep reading (lua.c's `incomplete`).
extension LuaState {
    /// Whether `chunk` is complete Lua: it compiles (it is not run), either as an expression (as
    /// `return <chunk>`) or as statements, or it has a syntax error that more input cannot fix.
    ///
    /// A chunk is incomplete when compiling stops at its end: the syntax error ends with `<eof>`
    /// ("unexpected symbol near <eof>", "'end' expected near <eof>", an unfinished string or long
    /// comment). `1 +` is incomplete because `return 1 +` is; `x = = 1` is complete (and wrong),
    /// so the REPL runs it and reports the error.
    ///
    /// - Complexity: compiles the chunk at most twice.
    public func isComplete(_ chunk: String) -> Bool {
        guard let expressionError = syntaxError(compiling: "return " + chunk) else { return true }
        guard let statementError = syntaxError(compiling: chunk) else { return true }
        let endMark = "<eof>"
        return !statementError.hasSuffix(endMark) && !expressionError.hasSuffix(endMark)
    }

    /// The message of the error compiling `chunk`, or `nil` when it compiles. Leaves the stack
    /// as it was.
    private func syntaxError(compiling chunk: String) -> String? {
        guard lua_checkstack(state, 1) != 0 else { return "Lua stack overflow" }
        let base = lua_gettop(state)
        defer { lua_settop(state, base) }
        let status = chunk.utf8CString.withUnsafeBufferPointer { source in
            ember_luaL_loadtext(state, source.baseAddress, source.count - 1, "=stdin")
        }
        guard status != LUA_OK else { return nil }
        guard case .string(let message) = value(at: -1) else { return "" }
        return message
    }
}
