/// Why a Swift function called from Lua failed: becomes a Lua error (catchable with `pcall`)
/// whose message is ``message``, prefixed with the caller's `chunk:line:`.
struct LuaBindingError: Error {
    /// The message, naming what was wrong and where (e.g. "ref:set: argument 1: ...").
    let message: String

    /// An error with `message`.
    init(_ message: String) {
        self.message = message
    }
}
