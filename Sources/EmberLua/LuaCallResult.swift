/// What a Swift function bound into Lua (a ``LuaBinding``) asks the trampoline to do.
enum LuaCallResult {
    /// Return the top `count` values.
    case values(Int32)
    /// Yield the running coroutine until the wait `ticket` (registered with the runtime) is
    /// ready; its results are pushed when the coroutine resumes.
    case await(ticket: Int)
    /// The top `count` values are the results, but first yield so that the host delivers the
    /// listener callbacks the call queued (a write's local events fire before it returns).
    case valuesAfterDelivery(Int32)
}
