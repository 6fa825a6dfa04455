import CLua
import CLuaSupport

/// The owner of one Lua 5.4 state: runs chunks, registers Swift functions, enforces limits.
///
/// A `LuaState` is confined to the thread that uses it (it is not `Sendable`); `deinit` closes
/// the state. Every call into Lua is protected: errors come back as ``LuaError`` values, never as
/// a longjmp through Swift.
///
/// Besides the configured libraries, every state has a global table `ember` holding the sentinel
/// `ember.null` (JSON null inside tables; see the JSON conversion in `LuaState+JSON.swift`), and
/// a `print` that goes to ``printHandler`` when one is set. Lua functions can be compiled once
/// and called with JSON arguments (``compileFunction(_:name:)``, ``call(_:with:)``), and
/// ``isComplete(_:)`` tells the REPL whether to read another line.
///
/// ```swift
/// let lua = try LuaState()
/// try lua.register("add") { args in
///     guard case .integer(let a) = args[0], case .integer(let b) = args[1] else { throw ... }
///     return [.integer(a + b)]
/// }
/// try lua.run(chunk: "return add(2, 3)", name: "=repl")   // [.integer(5)]
/// ```
public final class LuaState {
    /// The state; owned, closed in `deinit`.
    let state: OpaquePointer

    /// The configuration the state was created with (the limits can change later).
    public let configuration: LuaConfiguration

    /// The contexts whose addresses Lua closures hold (one for each registered function and
    /// runtime binding, see ``pushFunction(_:onto:)``), kept alive as long as the state that can
    /// call them: finalizers run while `deinit` closes the state, and may call any of them.
    var closureContexts: [FunctionContext] = []

    /// What finishes a wait when its coroutine is resumed (see ``setContinuation(_:)``).
    var continuation: ((Thread, Int) -> CallStatus)?

    /// What the count hook runs now and then (see ``setService(_:)``).
    var service: (() -> Void)?

    /// Receives each line Lua's `print` writes (its arguments through `tostring`, separated by
    /// tabs, without the newline); when `nil`, `print` writes to stdout as usual.
    ///
    /// The handler runs in the middle of the Lua code that printed: it must not throw or unwind,
    /// and should only record or write the line.
    public var printHandler: ((String) -> Void)?

    /// Creates a state with the configuration's libraries and limits.
    public init(configuration: LuaConfiguration = LuaConfiguration()) throws(LuaError) {
        guard let state = ember_lua_open(0) else {
            throw LuaError(.setup, message: "cannot create a Lua state: out of memory")
        }
        self.state = state
        self.configuration = configuration
        // self is fully initialized: if a step below throws, deinit closes the state
        let status = ember_lua_open_libraries(state, configuration.libraries == .all ? 1 : 0)
        guard status == LUA_OK else {
            throw popError(status: status, kind: .setup)
        }
        let opened = ember_lua_open_ember(state)
        guard opened == LUA_OK else {
            throw popError(status: opened, kind: .setup)
        }
        try installPrint()
        instructionLimit = configuration.instructionLimit
        memoryLimit = configuration.memoryLimit
        ember_lua_observe_sigint(state, configuration.observesInterruptSignal ? 1 : 0)
    }

    /// Closes the state: the finalizers still due run first (under the instruction limit and the
    /// interrupt, see `CLuaSupport.h`), then ``closureContexts`` go.
    deinit {
        ember_lua_close(state)
    }

    /// How many VM instructions one run may execute; `nil` for no limit.
    public var instructionLimit: Int? {
        get {
            let limit = ember_lua_instruction_limit(state)
            return limit > 0 ? Int(limit) : nil
        }
        set { ember_lua_set_instruction_limit(state, Int64(max(newValue ?? 0, 0))) }
    }

    /// How many bytes the state may allocate; `nil` for no limit.
    public var memoryLimit: Int? {
        get {
            let limit = ember_lua_memory_limit(state)
            return limit > 0 ? Int(limit) : nil
        }
        set { ember_lua_set_memory_limit(state, max(newValue ?? 0, 0)) }
    }

    /// The bytes the state currently holds.
    public var memoryUsed: Int { ember_lua_memory_used(state) }

    /// Compiles and runs a chunk of Lua source, and returns what it returns.
    ///
    /// - Parameters:
    ///   - chunk: Lua source text (binary chunks are refused).
    ///   - name: the chunk name used in messages: `"=repl"` shows as `repl:1:`, `"@init.lua"` as
    ///     `init.lua:1:`.
    /// - Throws: ``LuaError`` with kind `.syntax` when it does not compile; `.runtime` with the
    ///   traceback when it raises; `.interrupted`, `.instructionLimit` or `.memory` when a limit
    ///   stopped it. The state stays usable after any of them.
    ///
    /// A registered Swift function may call `run` again (nested runs share the outer run's
    /// instruction budget, and an interrupt or exceeded limit stops the outer run too).
    @discardableResult
    public func run(chunk: String, name: String) throws(LuaError) -> [LuaValue] {
        let base = lua_gettop(state)
        try load(chunk, name: name, base: base)
        // stack: ... | handler | function
        try protectedCall(argumentCount: 0, resultCount: LUA_MULTRET, base: base)
        // stack: ... | handler | results...
        let top = lua_gettop(state)
        let results = top > base + 1 ? (base + 2...top).map { value(at: $0) } : []
        lua_settop(state, base)
        return results
    }

    /// Pushes the traceback handler and then `chunk` compiled as a function: the stack becomes
    /// `base | handler | function`.
    ///
    /// - Throws: ``LuaError`` (`.syntax`, or `.memory`) with the stack reset to `base`.
    func load(_ chunk: String, name: String, base: Int32) throws(LuaError) {
        guard lua_checkstack(state, 3) != 0 else {
            throw LuaError(.memory, message: "Lua stack overflow")
        }
        // stack: ... | handler
        ember_lua_pushcfunction(state, ember_lua_traceback)
        let loaded = chunk.utf8CString.withUnsafeBufferPointer { source in
            ember_luaL_loadtext(state, source.baseAddress, source.count - 1, name)
        }
        guard loaded == LUA_OK else {
            // stack: ... | handler | message
            let error = popError(status: loaded, kind: .syntax)
            lua_settop(state, base)
            throw error
        }
    }

    /// Calls, as one run, the function below the `argumentCount` values on top of a stack laid
    /// out as `base | handler | function | arguments...`: protected, with the traceback handler,
    /// the instruction and memory limits and the interrupt.
    ///
    /// On success the stack is `base | handler | results...` (`resultCount` of them, or all with
    /// `LUA_MULTRET`).
    ///
    /// - Throws: ``LuaError`` (`.runtime` with the traceback, `.interrupted`,
    ///   `.instructionLimit`, `.memory`) with the stack reset to `base`.
    func protectedCall(argumentCount: Int32, resultCount: Int32, base: Int32) throws(LuaError) {
        let run = ember_lua_begin_run(state)
        let status = ember_lua_pcall(state, argumentCount, resultCount, base + 1)
        let stopReason = ember_lua_stop_reason(state)
        ember_lua_end_run(state, run)
        guard status == LUA_OK else {
            // stack: ... | handler | error
            let kind: LuaError.Kind =
                switch stopReason {
                case EMBER_LUA_STOP_INTERRUPTED: .interrupted
                case EMBER_LUA_STOP_INSTRUCTION_LIMIT: .instructionLimit
                default: .runtime
                }
            let error = popError(status: status, kind: kind)
            lua_settop(state, base)
            throw error
        }
    }

    /// Asks the code running in this state to stop with the error "interrupted". The request
    /// holds until the current (or, if none is running, the next) run ends, so `pcall` cannot
    /// swallow it.
    public func requestInterrupt() {
        ember_lua_request_interrupt(state)
    }

    /// Turns the error value on top of the stack into a ``LuaError`` and pops it.
    ///
    /// A runtime error's value comes from the message handler as "message\nstack traceback:...",
    /// which is split at its last traceback header.
    /// An Ember error object keeps its code and gives its message.
    func popError(status: Int32, kind: LuaError.Kind, code: String? = nil) -> LuaError {
        var code = code
        let text: String
        if let object = Self.errorObject(in: state, at: -1) {
            code = code ?? object.code
            text = object.message
        } else {
            text =
                switch value(at: -1) {
                case .string(let string): string
                case .other(let typeName): "(error object is a \(typeName) value)"
                case let other: "\(other)"
                }
        }
        ember_lua_pop(state, 1)
        let resolvedKind: LuaError.Kind =
            switch status {
            case LUA_ERRMEM: .memory
            case LUA_ERRERR: .messageHandler
            case LUA_ERRSYNTAX: .syntax
            default: kind
            }
        let header = "\nstack traceback:\n"
        guard status == LUA_ERRRUN, let split = text.ranges(of: header).last else {
            return LuaError(resolvedKind, message: text, code: code)
        }
        return LuaError(
            resolvedKind,
            message: String(text[..<split.lowerBound]),
            traceback: String(text[text.index(after: split.lowerBound)...]),
            code: code
        )
    }
}
