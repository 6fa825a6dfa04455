import EmberCore

/// Something a coroutine waits for (`get`, `once`, `h:wait`, `transaction`, `sleep`, `flush`):
/// when it is ready, and what the coroutine gets when it resumes.
final class LuaWait {
    /// The longest time `ember.sleep` sleeps and `h:wait` waits with a timeout, in milliseconds:
    /// 1 day. Longer values are refused, so a deadline never overflows the clock.
    static let longestDuration: Int64 = 86_400_000

    /// Whether what is waited for has happened.
    let isReady: () -> Bool
    /// When the wait gives up (the runtime's clock), if ever.
    let deadline: Int64?
    /// Pushes the results for the resumed coroutine (or throws the error to raise there);
    /// `outcome` says how the wait ended.
    let finish: (LuaCall, LuaWaitOutcome) throws(LuaBindingError) -> LuaCallResult

    /// A wait.
    init(
        deadline: Int64? = nil, isReady: @escaping () -> Bool,
        finish: @escaping (LuaCall, LuaWaitOutcome) throws(LuaBindingError) -> LuaCallResult
    ) {
        self.isReady = isReady
        self.deadline = deadline
        self.finish = finish
    }

    /// The function that waits (`ref:get`), for messages.
    var name = "wait"
    /// Whether that function is a method.
    var isMethod = false

    /// How the wait ended, once it did.
    var outcome: LuaWaitOutcome?
}

/// How a wait ended.
enum LuaWaitOutcome {
    /// What was waited for happened.
    case ready
    /// The deadline passed first.
    case timedOut
    /// The engine cannot get there (nothing left to happen, e.g. offline) or failed.
    case failed(DatabaseError)
}
