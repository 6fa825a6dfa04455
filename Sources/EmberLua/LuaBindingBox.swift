import EmberCore

/// A ``LuaBinding`` with its name: what its Lua closure calls (``LuaState/pushFunction(_:onto:)``).
///
/// The state keeps every box alive as long as itself (`LuaState.closureContexts`), so a closure
/// never outlives its box. The state can outlive the runtime (its finalizers run when it closes,
/// after the runtime's `deinit`): the runtime detaches its boxes first, and a detached box raises
/// a Lua error instead of reaching the runtime.
final class LuaBindingBox {
    /// How scripts write the function (`ref:set`), for messages.
    let name: String
    /// Whether argument 1 is `self`.
    let isMethod: Bool
    /// The function.
    let body: LuaBinding
    /// The runtime it belongs to; only read while ``isDetached`` is false.
    unowned let runtime: LuaRuntime
    /// Whether the runtime is gone (or going): set by ``detach()``.
    private(set) var isDetached = false

    /// A box for `body`.
    init(name: String, isMethod: Bool, runtime: LuaRuntime, body: @escaping LuaBinding) {
        self.name = name
        self.isMethod = isMethod
        self.runtime = runtime
        self.body = body
    }

    /// Cuts the box off its runtime, which is going away: calls from Lua fail from now on.
    func detach() {
        isDetached = true
    }

}

extension LuaBindingBox: LuaState.Callable {
    /// Runs the binding on `thread`, the thread Lua called it on (``LuaState/Callable``).
    func call(from thread: LuaState.Thread) -> LuaState.CallStatus {
        guard !isDetached else {
            thread.push(
                errorCode: ErrorCode.sessionEnded, message: "\(name): the Lua session has ended (its database is closed)")
            return .error
        }
        let call = LuaCall(thread: thread, runtime: runtime, name: name, isMethod: isMethod)
        do throws(LuaBindingError) {
            return Self.status(of: try body(call))
        } catch {
            thread.push(error: error)
            return .error
        }
    }

    /// The trampoline status for `result`.
    static func status(of result: LuaCallResult) -> LuaState.CallStatus {
        switch result {
        case .values(let count): .results(count)
        case .await(let ticket): .await(ticket: ticket)
        case .valuesAfterDelivery(let count): .resultsAfterYield(count)
        }
    }
}
