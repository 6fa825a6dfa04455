import CLua
import CLuaSupport

/// What lets Swift functions wait: the continuation that finishes a wait when its coroutine is
/// resumed, the service the count hook runs, and the interrupt.
extension LuaState {
    /// Sets what finishes a wait (a Swift function returned ``CallStatus/await(ticket:)``) when
    /// its coroutine is resumed: `handler` gets the coroutine and the ticket, pushes the results
    /// (or the error value) and returns the status. `nil` removes it.
    func setContinuation(_ handler: ((Thread, Int) -> CallStatus)?) {
        continuation = handler
        ember_lua_set_continuation(
            state, handler == nil ? nil : Self.continuationEntry, handler == nil ? nil : Unmanaged.passUnretained(self).toOpaque())
    }

    /// The C entry point a resumed wait calls: runs the continuation of the state at `context`.
    private static let continuationEntry: ember_lua_continuation_function = { state, context, ticket in
        guard let state, let context else { return EMBER_LUA_CALL_ERROR }
        let lua = Unmanaged<LuaState>.fromOpaque(context).takeUnretainedValue()
        let thread = Thread(state)
        guard let continuation = lua.continuation else {
            thread.push(string: "ember: no continuation")
            return EMBER_LUA_CALL_ERROR
        }
        return continuation(thread, Int(ticket)).code(on: thread)
    }

    /// Sets what runs now and then while Lua code runs (about every 64,000 VM instructions, from
    /// the count hook); it must not run Lua or wait. `nil` removes it.
    func setService(_ handler: (() -> Void)?) {
        service = handler
        ember_lua_set_service(
            state, handler == nil ? nil : Self.serviceEntry, handler == nil ? nil : Unmanaged.passUnretained(self).toOpaque())
    }

    /// The C entry point the count hook calls now and then: runs the service of the state at
    /// `context`.
    private static let serviceEntry: ember_lua_service_function = { context in
        guard let context else { return }
        Unmanaged<LuaState>.fromOpaque(context).takeUnretainedValue().service?()
    }

    /// Whether an interrupt (Ctrl-C when observed, or ``requestInterrupt()``) is pending,
    /// whether or not code is running.
    var interruptPending: Bool { ember_lua_interrupt_pending(state) != 0 }

    /// Clears an interrupt request made while no code was running.
    func clearInterrupt() { ember_lua_clear_interrupt(state) }
}

extension LuaState.Thread {
    /// Whether a Swift function running on this thread may wait (return
    /// ``LuaState/CallStatus/await(ticket:)`` or ``LuaState/CallStatus/resultsAfterYield(_:)``):
    /// the thread can yield, and no script finalizer is running.
    var canWait: Bool { ember_lua_can_wait(pointer) != 0 }

    /// Pushes the wait sentinel every Ember wait yields (never allocates).
    func pushWaitSentinel() { ember_lua_push_wait_sentinel(pointer) }

    /// Pushes `make_index(methods, fields)`, which makes the `__index` of an object type with
    /// fields (``ember_lua_make_index``): a C closure, where a Lua function cost a method call
    /// about 400 instructions more.
    func pushIndexMaker() { ember_lua_pushcfunction(pointer, ember_lua_make_index) }
}
