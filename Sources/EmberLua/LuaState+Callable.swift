extension LuaState {
    /// A Swift object Lua can call as a function (see ``LuaState/pushFunction(_:onto:)``): a
    /// registered ``LuaFunction``, or a runtime's binding.
    protocol Callable: AnyObject {
        /// Runs with the call's arguments on `thread`'s stack (at 1 and up) and leaves its results,
        /// or its error value, on top. Must not raise nor unwind.
        func call(from thread: LuaState.Thread) -> LuaState.CallStatus
    }
}
