import CLua
import CLuaSupport
import EmberCore

/// A ``LuaBinding`` with its name, the context pointer of its Lua closure.
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

    /// The C entry point handed to `ember_lua_push_swift_function`: runs the box at `context`.
    static let entryPoint: ember_lua_swift_function = { state, context in
        guard let state, let context else { return EMBER_LUA_CALL_ERROR }
        let box = Unmanaged<LuaBindingBox>.fromOpaque(context).takeUnretainedValue()
        guard !box.isDetached else {
            LuaState.push(
                errorCode: ErrorCode.sessionEnded, message: "\(box.name): the Lua session has ended (its database is closed)",
                onto: state)
            return EMBER_LUA_CALL_ERROR
        }
        let call = LuaCall(state: state, runtime: box.runtime, name: box.name, isMethod: box.isMethod)
        do throws(LuaBindingError) {
            return status(of: try box.body(call), on: state, runtime: box.runtime)
        } catch {
            LuaState.push(error: error, onto: state)
            return EMBER_LUA_CALL_ERROR
        }
    }

    /// The trampoline status for `result`.
    static func status(of result: LuaCallResult, on state: OpaquePointer, runtime: LuaRuntime) -> Int32 {
        switch result {
        case .values(let count):
            return count
        case .await(let ticket):
            ember_lua_set_yield_ticket(state, ticket)
            return EMBER_LUA_CALL_AWAIT
        case .valuesAfterDelivery(let count):
            ember_lua_set_yield_ticket(state, Int(count))
            return EMBER_LUA_CALL_RETURN_AFTER_YIELD
        }
    }
}
