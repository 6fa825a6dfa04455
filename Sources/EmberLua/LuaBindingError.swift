import EmberCore

/// Why a Swift function called from Lua failed: becomes a Lua error object (catchable with
/// `pcall`) whose `code` is ``code`` and whose `message` is ``message``, prefixed with the
/// caller's `chunk:line:`.
struct LuaBindingError: Error {
    /// The stable code (one of ``ErrorCode``): `invalid_argument` for a bad argument, the
    /// database's code for a refused operation.
    let code: String
    /// The message, naming what was wrong and where (e.g. "ref:set: argument 1: ...").
    let message: String
    /// The database path the error concerns, when there is one.
    let path: Path?

    /// An error with `code` and `message`.
    init(code: String, _ message: String, path: Path? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }
}
