import CLua
import CLuaSupport

/// A registered ``LuaFunction`` and the code that runs it when Lua calls it.
///
/// The box is the context pointer of its Lua closure. The `LuaState` keeps it alive (in
/// `closureContexts`), so the closure can never outlive it.
final class LuaFunctionBox {
    /// The global name the function was registered under (for messages).
    let name: String

    /// The Swift function.
    let body: LuaFunction

    /// Creates a box for `body`.
    init(name: String, body: @escaping LuaFunction) {
        self.name = name
        self.body = body
    }

    /// The C entry point handed to `ember_lua_push_swift_function`: calls the box at `context`.
    static let entryPoint: ember_lua_swift_function = { state, context in
        guard let state, let context else { return EMBER_LUA_CALL_ERROR }
        let box = Unmanaged<LuaFunctionBox>.fromOpaque(context).takeUnretainedValue()
        return box.call(from: state)
    }

    /// Runs the function with the arguments on the stack of `state` and leaves its results (or
    /// its error message) there. Returns the trampoline status; never raises.
    func call(from state: OpaquePointer) -> Int32 {
        let count = lua_gettop(state)
        let arguments = count > 0 ? (1...count).map { LuaState.value(in: state, at: $0) } : []
        let results: [LuaValue]
        do {
            results = try body(arguments)
        } catch {
            LuaState.push(.string(String(describing: error)), onto: state)
            return EMBER_LUA_CALL_ERROR
        }
        guard results.count < Int(Int32.max), lua_checkstack(state, Int32(results.count)) != 0 else {
            LuaState.push(.string("\(name): too many results (\(results.count))"), onto: state)
            return EMBER_LUA_CALL_ERROR
        }
        for result in results {
            LuaState.push(result, onto: state)
        }
        return Int32(results.count)
    }
}
