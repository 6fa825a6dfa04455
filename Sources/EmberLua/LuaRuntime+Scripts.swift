import CLua
import CLuaSupport
import EmberEngine
import EmberClient
import EmberCore

/// Running chunks, scripts, plugins and plugin commands as coroutines.
extension LuaRuntime {
    /// Compiles `source` and runs it to its end in `environment`, waiting (and delivering
    /// callbacks) whenever it waits, then returns what it returned.
    ///
    /// - Parameters:
    ///   - source: Lua source text (binary chunks are refused).
    ///   - name: the chunk name: `"=lua"` shows as `lua:1:`, `"@seed.lua"` as `seed.lua:1:`.
    ///   - environment: the session's globals or a fresh script environment.
    /// - Throws: ``LuaError``: `.syntax`; `.runtime` with the traceback; `.interrupted`,
    ///   `.instructionLimit`, `.memory` when a limit stopped it. The runtime stays usable.
    @discardableResult
    public func run(_ source: String, name: String, in environment: LuaEnvironment) throws(LuaError) -> [LuaReturnValue] {
        let state = lua.state
        let base = lua_gettop(state)
        defer { lua_settop(state, base) }
        guard lua_checkstack(state, 4) != 0 else { throw LuaError(.memory, message: "Lua stack overflow") }
        let loaded = source.utf8CString.withUnsafeBufferPointer { text in
            ember_luaL_loadtext(state, text.baseAddress, text.count - 1, name)
        }
        guard loaded == LUA_OK else { throw lua.popError(status: loaded, kind: .syntax) }
        // stack: ... | chunk
        let chunk = anchor(valueAt: -1, in: state)
        defer { release(chunk) }
        return try runThread(name: LuaState.displayName(of: name)) { call throws(LuaBindingError) in
            call.push(registryReference: chunk)
            try self.pushEnvironment(environment, call: call)
            // _ENV is the main chunk's only upvalue
            _ = lua_setupvalue(call.state, -2, 1)
            guard case .script(_, let arguments) = environment else { return 0 }
            for argument in arguments { call.push(argument) }
            return Int32(arguments.count)
        }
    }

    /// Runs a plugin file in a fresh environment; the commands it adds name it as their origin.
    /// - Throws: ``LuaError`` when it does not compile or fails (its commands stay unregistered
    ///   only if it failed before adding them).
    public func loadPlugin(source: String, file: String) throws(LuaError) {
        let previous = loadingPlugin
        loadingPlugin = file
        defer { loadingPlugin = previous }
        try run(source, name: "@" + file, in: .script(name: file, arguments: []))
    }

    /// Runs a command added with `ember.command`: its `run` function gets the arguments as a
    /// sequence of words and, second, the text after the command's name.
    public func runCommand(_ command: LuaCommand, arguments: String) throws(LuaError) -> [LuaReturnValue] {
        let words = arguments.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        return try runThread(name: command.name) { call throws(LuaBindingError) in
            call.push(registryReference: command.function)
            lua_createtable(call.state, Int32(words.count), 0)
            for (offset, word) in words.enumerated() {
                call.push(word)
                lua_rawseti(call.state, -2, lua_Integer(offset + 1))
            }
            call.push(arguments)
            return 2
        }
    }

    /// Pushes the environment table a chunk runs in.
    func pushEnvironment(_ environment: LuaEnvironment, call: LuaCall) throws(LuaBindingError) {
        let state = call.state
        switch environment {
        case .session:
            call.push(registryReference: sessionEnvironment)
            // db follows the shell's current client
            call.push("db")
            call.push(object: currentDatabase, as: .database)
            lua_rawset(state, -3)
        case .script(let name, let arguments):
            call.push(registryReference: newEnvironment)
            call.push(object: currentDatabase, as: .database)
            lua_createtable(state, Int32(arguments.count), 1)
            call.push(name)
            lua_rawseti(state, -2, 0)
            for (offset, argument) in arguments.enumerated() {
                call.push(argument)
                lua_rawseti(state, -2, lua_Integer(offset + 1))
            }
            // the prelude's environment maker is plain Lua that cannot fail but for memory
            guard ember_lua_pcall(state, 2, 1, 0) == LUA_OK else {
                throw LuaBindingError(
                    code: ErrorCode.memoryLimit, "cannot create the script's environment: \(LuaState.value(in: state, at: -1))")
            }
        }
    }

    /// Runs, in a new coroutine, the function and arguments `push` pushes (it returns the
    /// number of arguments), to its end, and returns its results.
    func runThread(
        name: String, push: @escaping (LuaCall) throws(LuaBindingError) -> Int32
    ) throws(LuaError) -> [LuaReturnValue] {
        let state = lua.state
        let base = lua_gettop(state)
        defer { lua_settop(state, base) }
        var created: OpaquePointer?
        let made = ember_lua_new_thread(state, &created)
        guard made == LUA_OK, let thread = created else { throw lua.popError(status: made, kind: .memory) }
        // stack: ... | thread (anchored there while it runs)
        let pushed = lua.hostCall(resultCount: LUA_MULTRET) { pushState in
            let call = LuaCall(state: pushState, runtime: self, name: name, isMethod: false)
            do throws(LuaBindingError) {
                return try push(call) + 1
            } catch {
                lua_settop(pushState, 0)
                LuaState.push(error: error, onto: pushState)
                return EMBER_LUA_CALL_ERROR
            }
        }
        guard pushed == LUA_OK else { throw lua.popError(status: pushed, kind: .runtime) }
        // stack: ... | thread | function | arguments...
        let count = lua_gettop(state) - base - 1
        guard lua_checkstack(thread, count + 8) != 0 else { throw LuaError(.memory, message: "Lua stack overflow") }
        lua_xmove(state, thread, count)
        let results = try drive(thread, arguments: count - 1)
        defer { lua_settop(thread, 0) }
        let top = lua_gettop(thread)
        return results == 0 ? [] : ((top - results + 1)...top).map { returnValue(in: thread, at: $0) }
    }

    /// Resumes `thread` until it ends, serving its waits. Returns how many results it left on
    /// its stack.
    func drive(_ thread: OpaquePointer, arguments: Int32) throws(LuaError) -> Int32 {
        let state = lua.state
        var argumentCount = arguments
        while true {
            var resultCount: Int32 = 0
            yieldedTicket = nil
            let run = ember_lua_begin_run(state)
            let status = lua_resume(thread, state, argumentCount, &resultCount)
            let stopReason = ember_lua_stop_reason(state)
            ember_lua_end_run(state, run)
            argumentCount = 0
            switch status {
            case LUA_OK:
                return resultCount
            case LUA_YIELD:
                ember_lua_pop(thread, resultCount)
                let ticket = yieldedTicket
                yieldedTicket = nil
                do {
                    if let ticket, let wait = waits[ticket] {
                        try self.wait(for: wait)
                    } else {
                        // a plain coroutine.yield() at the top of a script, or a write's local
                        // events: let the callbacks run, then go on
                        try deliverCallbacks()
                    }
                } catch {
                    if let ticket { waits[ticket] = nil }
                    ember_lua_clear_interrupt(state)
                    _ = lua_resetthread(thread)
                    throw error
                }
            default:
                lua_xmove(thread, state, 1)
                let kind: LuaError.Kind =
                    switch (status, stopReason) {
                    case (_, EMBER_LUA_STOP_INTERRUPTED): .interrupted
                    case (_, EMBER_LUA_STOP_INSTRUCTION_LIMIT): .instructionLimit
                    case (LUA_ERRMEM, _): .memory
                    default: .runtime
                    }
                // an Ember error object keeps its code; the traceback makes it a string
                let code = kind == .runtime ? LuaState.errorObject(in: state, at: -1)?.code : nil
                ember_lua_thread_error(state, thread)
                let error = lua.popError(status: LUA_ERRRUN, kind: kind, code: code)
                _ = lua_resetthread(thread)
                throw error
            }
        }
    }

    /// An error object as JSON, `{"code": ..., "message": ..., "path": ...}` (no `path` when it
    /// has none), or `nil` when the value is not an error object.
    func errorJSON(in state: OpaquePointer, at index: Int32) -> JSONValue? {
        guard let error = LuaState.errorObject(in: state, at: index) else { return nil }
        var members: [(key: String, value: JSONValue)] = [("code", .string(error.code)), ("message", .string(error.message))]
        if let path = error.path { members.append(("path", .string(path))) }
        return .object(members)
    }

    /// A result as the shell prints it: JSON for JSON values, snapshots and error objects.
    func returnValue(in state: OpaquePointer, at index: Int32) -> LuaReturnValue {
        switch lua_type(state, index) {
        case LUA_TNIL, LUA_TNONE: return .nil
        case LUA_TUSERDATA:
            if ember_lua_is_null(state, index) != 0 { return .text("ember.null") }
            if let error = errorJSON(in: state, at: index) { return .json(error) }
            if let pointer = ember_lua_to_object(state, index, LuaObjectType.snapshot.rawValue) {
                return .json(Unmanaged<LuaBox<DataSnapshot>>.fromOpaque(pointer).takeUnretainedValue().value.value)
            }
            if let description = describeObject(in: state, at: index) { return .text(description) }
        case LUA_TTABLE, LUA_TBOOLEAN, LUA_TNUMBER, LUA_TSTRING:
            if let json = try? LuaState.json(in: state, at: index) { return .json(json) }
        default: break
        }
        let typeName = String(cString: lua_typename(state, lua_type(state, index)))
        let address = lua_topointer(state, index).map { String(UInt(bitPattern: $0), radix: 16) } ?? "0"
        return .text("\(typeName): 0x\(address)")
    }
}

extension LuaRuntime {
    /// Forgets the commands `origin` added (a plugin that failed to load is skipped whole).
    /// - Returns: their names.
    @discardableResult
    public func removeCommands(addedBy origin: String) -> [String] {
        let removed = commands.filter { $0.origin == origin }
        for command in removed { release(command.function) }
        commands.removeAll { $0.origin == origin }
        return removed.map(\.name)
    }
}
