import CLua
import CLuaSupport

/// Registering Swift functions as Lua globals.
extension LuaState {
    /// Makes `function` callable from Lua as the global `name`.
    ///
    /// Lua calls it through the C trampoline: its results are pushed as Lua values, and an error
    /// it throws is raised in Lua with the error's description as message.
    ///
    /// - Throws: ``LuaError`` when the global cannot be set (out of memory, or a `__newindex` on
    ///   the globals that refuses it).
    public func register(_ name: String, _ function: @escaping LuaFunction) throws(LuaError) {
        let box = LuaFunctionBox(name: name, body: function)
        guard lua_checkstack(state, 4) != 0 else {
            throw LuaError(.memory, message: "Lua stack overflow")
        }
        let context = Unmanaged.passUnretained(box).toOpaque()
        let pushed = ember_lua_push_swift_function(state, LuaFunctionBox.entryPoint, context)
        guard pushed == LUA_OK else {
            throw popError(status: pushed, kind: .runtime)
        }
        closureContexts.append(box)
        // stack: ... | function
        let stored = ember_lua_set_global(state, name)
        guard stored == LUA_OK else {
            throw popError(status: stored, kind: .runtime)
        }
    }
}
