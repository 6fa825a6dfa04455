/// A Swift function callable from Lua: it receives the call's arguments and returns its results.
///
/// A thrown error becomes a Lua error whose message is the error's description (prefixed by the
/// caller's `chunk:line:` as Lua's `error` does), so Lua code can catch it with `pcall`. The
/// error is raised by the C trampoline after this function has returned: no Lua error ever
/// unwinds a Swift frame.
public typealias LuaFunction = ([LuaValue]) throws -> [LuaValue]
