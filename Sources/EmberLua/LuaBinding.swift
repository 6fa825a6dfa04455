/// A Swift function bound into Lua with direct access to its call's stack (see ``LuaCall``).
///
/// It runs inside the C trampoline, so it never raises a Lua error itself: a thrown
/// ``LuaBindingError`` is raised by the trampoline after the Swift frame is gone.
typealias LuaBinding = (LuaCall) throws(LuaBindingError) -> LuaCallResult
