/// A registered ``LuaFunction`` and the code that runs it when Lua calls it.
///
/// The box is what its Lua closure calls (``LuaState/register(_:_:)``). The `LuaState` keeps it
/// alive (in `closureContexts`), so the closure can never outlive it.
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

}

extension LuaFunctionBox: LuaState.Callable {
    /// Runs the function with the arguments on the stack of `thread` and leaves its results (or
    /// its error message) there. Never raises.
    func call(from thread: LuaState.Thread) -> LuaState.CallStatus {
        let count = thread.top
        let arguments = count > 0 ? (1...count).map { thread.value(at: $0) } : []
        let results: [LuaValue]
        do {
            results = try body(arguments)
        } catch {
            thread.push(.string(String(describing: error)))
            return .error
        }
        guard results.count < Int(Int32.max), thread.checkStack(Int32(results.count)) else {
            thread.push(.string("\(name): too many results (\(results.count))"))
            return .error
        }
        for result in results {
            thread.push(result)
        }
        return .results(Int32(results.count))
    }
}
