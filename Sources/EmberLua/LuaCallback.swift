import EmberClient
import EmberCore

/// A Lua function call queued for the runtime to make between commands or while a script
/// waits: a listener's event, a write's completion, a transaction's `onComplete`.
struct LuaCallback {
    /// An argument of the call.
    enum Argument {
        case snapshot(DataSnapshot)
        case string(String?)
        case boolean(Bool)
        /// An error object (`err.code`, `err.message`), or `nil` for success.
        case error(DatabaseError?)
    }

    /// The registry reference of the function.
    let function: Int32
    /// Whether the runtime releases ``function`` after the call (a one-shot callback).
    let releasesFunction: Bool
    /// The arguments.
    let arguments: [Argument]
    /// Where an error is reported from ("value listener on /chat").
    let context: String
    /// The listener it belongs to: skipped when that was switched off meanwhile.
    let listener: LuaListener?
}
