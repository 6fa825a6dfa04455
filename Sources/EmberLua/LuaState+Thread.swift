import CLua

/// The stack of one Lua thread (the main state or a coroutine), as the rest of the module uses
/// it: every operation on a Lua stack goes through a ``LuaState/Thread``.
extension LuaState {
    /// A view of one Lua thread's stack: the state's main thread, a coroutine the runtime
    /// drives, or the thread a Swift function was called on.
    ///
    /// It does not own the thread (the ``LuaState`` does, or the Lua value that anchors a
    /// coroutine), so it is only valid while that thread is alive, and, like its state, on one
    /// thread of the system. Reading never raises; pushing allocates, so it only happens inside a
    /// Swift function Lua called or a host call (``LuaState/hostCall(argumentCount:resultCount:failure:_:)``),
    /// where the memory limit is suspended and a failure unwinds to a C frame.
    struct Thread {
        /// The `lua_State` of the thread.
        let pointer: OpaquePointer

        /// A view of the thread `pointer`.
        init(_ pointer: OpaquePointer) {
            self.pointer = pointer
        }
    }

    /// The stack of the state's main thread.
    var mainThread: Thread { Thread(state) }
}

extension LuaState.Thread {
    /// The index of the top of the stack: how many values it holds.
    var top: Int32 { lua_gettop(pointer) }

    /// Sets the top to `index`, popping the values above it (or pushing `nil`s up to it).
    func setTop(_ index: Int32) { lua_settop(pointer, index) }

    /// Pops `count` values.
    func pop(_ count: Int32) { ember_lua_pop(pointer, count) }

    /// The absolute stack index of the (possibly negative) index `index`.
    func absoluteIndex(_ index: Int32) -> Int32 { lua_absindex(pointer, index) }

    /// Makes room for `count` more values; `false` when the stack cannot grow that much.
    func checkStack(_ count: Int32) -> Bool { lua_checkstack(pointer, count) != 0 }

    /// Pushes a copy of the value at `index`.
    func pushCopy(of index: Int32) { lua_pushvalue(pointer, index) }

    /// Pops `count` values and pushes them, in the same order, onto `other` (a thread of the
    /// same state with room for them).
    func moveValues(_ count: Int32, to other: LuaState.Thread) { lua_xmove(pointer, other.pointer, count) }
}
