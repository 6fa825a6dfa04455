import CLua
import EmberCore

/// Checks and conversions bindings share.
extension LuaCall {
    /// Throws unless the running code can wait (it runs in a coroutine the runtime drives, not in
    /// a transaction function, a metamethod or a `table.sort` comparator).
    func requireWaiting() throws(LuaBindingError) {
        guard lua_isyieldable(state) != 0 else {
            throw failure("cannot wait here (inside a transaction function, a metamethod or a sort comparator, nothing may wait)")
        }
    }

    /// Runs a client call, turning its error into this function's error.
    func attempt<Value>(_ body: () throws(DatabaseError) -> Value) throws(LuaBindingError) -> Value {
        do {
            return try body()
        } catch {
            throw failure(error.message)
        }
    }
}
