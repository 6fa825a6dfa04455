import CLua
import CLuaSupport

/// Registering Swift functions as Lua globals, and pushing Swift objects as Lua functions.
extension LuaState {
    /// Makes `function` callable from Lua as the global `name`.
    ///
    /// Lua calls it through the C trampoline: its results are pushed as Lua values, and an error
    /// it throws is raised in Lua with the error's description as message.
    ///
    /// - Throws: ``LuaError`` when the global cannot be set (out of memory, or a `__newindex` on
    ///   the globals that refuses it).
    public func register(_ name: String, _ function: @escaping LuaFunction) throws(LuaError) {
        let context = FunctionContext(LuaFunctionBox(name: name, body: function))
        guard lua_checkstack(state, 4) != 0 else {
            throw LuaError(.memory, message: "Lua stack overflow")
        }
        let pushed = push(context, onto: mainThread)
        guard pushed == LUA_OK else {
            throw popError(status: pushed, kind: .runtime)
        }
        closureContexts.append(context)
        // stack: ... | function
        let stored = ember_lua_set_global(state, name)
        guard stored == LUA_OK else {
            throw popError(status: stored, kind: .runtime)
        }
    }

    /// Pushes onto `thread` (inside a host call) a Lua function that runs `callable`, which the
    /// state keeps alive as long as itself.
    /// - Returns: whether it worked (otherwise the error value is on top).
    func pushFunction(_ callable: any Callable, onto thread: Thread) -> Bool {
        let context = FunctionContext(callable)
        closureContexts.append(context)
        return push(context, onto: thread) == LUA_OK
    }

    /// The objects Lua functions of this state call (registered functions, a runtime's bindings).
    var callables: [any Callable] { closureContexts.map(\.callable) }

    /// Pushes the trampoline closure whose context is `context` (not retained: the caller keeps
    /// it in ``closureContexts``). Returns the status, with the error value on top on failure.
    private func push(_ context: FunctionContext, onto thread: Thread) -> Int32 {
        ember_lua_push_swift_function(thread.pointer, Self.functionEntry, Unmanaged.passUnretained(context).toOpaque())
    }

    /// The C entry point of every pushed function: runs the callable of the context at `context`.
    private static let functionEntry: ember_lua_swift_function = { state, context in
        guard let state, let context else { return EMBER_LUA_CALL_ERROR }
        let thread = Thread(state)
        return Unmanaged<FunctionContext>.fromOpaque(context).takeUnretainedValue().callable.call(from: thread).code(on: thread)
    }

    /// The context pointer of a Lua closure that calls Swift: a fixed address for a callable.
    final class FunctionContext {
        /// What the closure calls.
        let callable: any Callable

        /// The context of `callable`.
        init(_ callable: any Callable) {
            self.callable = callable
        }
    }
}

extension LuaState.Thread {
    /// Replaces the upvalue `number` of the function at `index` with the value on top, which is
    /// popped (a main chunk's only upvalue, 1, is its `_ENV`).
    func setUpvalue(_ number: Int32, ofFunctionAt index: Int32) {
        _ = lua_setupvalue(pointer, index, number)
    }
}
