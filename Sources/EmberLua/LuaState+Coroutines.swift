import CLua
import CLuaSupport

/// Coroutines: the threads scripts, chunks and callbacks run in, resumed by the runtime.
extension LuaState {
    /// Creates a coroutine and pushes it onto the main thread, which anchors it while it is there.
    /// - Throws: ``LuaError`` of kind `.memory` when it cannot be created (nothing is pushed).
    func newThread() throws(LuaError) -> Thread {
        var created: OpaquePointer?
        let made = ember_lua_new_thread(state, &created)
        guard made == LUA_OK, let thread = created else { throw popError(status: made, kind: .memory) }
        return Thread(thread)
    }

    /// Resumes `thread` (a coroutine of this state) with the `argumentCount` values on top of its
    /// stack, as one run: with the instruction and memory limits and the interrupt.
    ///
    /// - Returns: how many results it left on its stack when it finished; `nil` when it yielded
    ///   (the values it yielded are popped).
    /// - Throws: ``LuaError`` when it failed (`.runtime` with the coroutine's traceback, keeping
    ///   the code of an Ember error object; `.interrupted`, `.instructionLimit`, `.memory`); the
    ///   coroutine is then reset.
    func resume(_ thread: Thread, argumentCount: Int32) throws(LuaError) -> Int32? {
        var resultCount: Int32 = 0
        let run = ember_lua_begin_run(state)
        let status = lua_resume(thread.pointer, state, argumentCount, &resultCount)
        let stopReason = ember_lua_stop_reason(state)
        ember_lua_end_run(state, run)
        switch status {
        case LUA_OK:
            return resultCount
        case LUA_YIELD:
            thread.pop(resultCount)
            return nil
        default:
            lua_xmove(thread.pointer, state, 1)
            let kind: LuaError.Kind =
                switch (status, stopReason) {
                case (_, EMBER_LUA_STOP_INTERRUPTED): .interrupted
                case (_, EMBER_LUA_STOP_INSTRUCTION_LIMIT): .instructionLimit
                case (LUA_ERRMEM, _): .memory
                default: .runtime
                }
            // an Ember error object keeps its code; the traceback makes it a string
            let code = kind == .runtime ? Self.errorObject(in: state, at: -1)?.code : nil
            ember_lua_thread_error(state, thread.pointer)
            let error = popError(status: LUA_ERRRUN, kind: kind, code: code)
            thread.reset()
            throw error
        }
    }
}

extension LuaState.Thread {
    /// Resets a coroutine that failed or will not be resumed: closes its pending to-be-closed
    /// variables and empties its stack.
    func reset() { _ = lua_resetthread(pointer) }

    /// Calls the function below the `argumentCount` values on top, in protected mode without a
    /// message handler, and returns whether it worked: then its results (`resultCount` of them)
    /// replace it, else its error value does. For plain Lua of the host's (no limits are set up).
    func call(argumentCount: Int32, resultCount: Int32) -> Bool {
        ember_lua_pcall(pointer, argumentCount, resultCount, 0) == LUA_OK
    }
}
