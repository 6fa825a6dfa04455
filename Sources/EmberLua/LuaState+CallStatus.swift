import CLuaSupport

extension LuaState {
    /// What a Swift function Lua called (or a host call's body, or a wait's continuation) leaves
    /// for the C trampoline to do.
    enum CallStatus {
        /// Return the `count` values on top of the stack.
        case results(Int32)
        /// Raise the error value on top of the stack (from C, never across Swift).
        case error
        /// Yield the wait sentinel; when resumed, the continuation finishes the wait `ticket`.
        /// Only where the thread can wait (``LuaState/Thread/canWait``).
        case await(ticket: Int)
        /// Yield the wait sentinel so the host runs queued work, then return the `count` values
        /// on top of the stack. Only where the thread can wait.
        case resultsAfterYield(Int32)

        /// The trampoline's code for the status, returned to C by an entry point running on
        /// `thread`; sets the thread's yield ticket for the statuses that yield.
        func code(on thread: Thread) -> Int32 {
            switch self {
            case .results(let count):
                return count
            case .error:
                return EMBER_LUA_CALL_ERROR
            case .await(let ticket):
                ember_lua_set_yield_ticket(thread.pointer, ticket)
                return EMBER_LUA_CALL_AWAIT
            case .resultsAfterYield(let count):
                ember_lua_set_yield_ticket(thread.pointer, Int(count))
                return EMBER_LUA_CALL_RETURN_AFTER_YIELD
            }
        }
    }
}
