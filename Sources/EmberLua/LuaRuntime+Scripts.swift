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
        let main = lua.mainThread
        let base = main.top
        defer { main.setTop(base) }
        guard main.checkStack(4) else { throw LuaError(.memory, message: "Lua stack overflow") }
        try lua.pushCompiled(source, name: name)
        // stack: ... | chunk
        let chunk = anchor(valueAt: -1, in: main)
        defer { release(chunk) }
        return try runThread(name: LuaState.displayName(of: name)) { call throws(LuaBindingError) in
            call.push(registryReference: chunk)
            try self.pushEnvironment(environment, call: call)
            // _ENV is the main chunk's only upvalue
            call.thread.setUpvalue(1, ofFunctionAt: -2)
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
            call.thread.createTable(arrayCount: Int32(words.count))
            for (offset, word) in words.enumerated() {
                call.push(word)
                call.thread.rawSet(at: Int64(offset + 1), ofTableAt: -2)
            }
            call.push(arguments)
            return 2
        }
    }

    /// Pushes the environment table a chunk runs in.
    func pushEnvironment(_ environment: LuaEnvironment, call: LuaCall) throws(LuaBindingError) {
        let thread = call.thread
        switch environment {
        case .session:
            call.push(registryReference: sessionEnvironment)
            // db follows the shell's current client
            call.push("db")
            call.push(object: currentDatabase, as: .database)
            thread.rawSet(ofTableAt: -3)
        case .script(let name, let arguments):
            call.push(registryReference: newEnvironment)
            call.push(object: currentDatabase, as: .database)
            thread.createTable(arrayCount: Int32(arguments.count), fieldCount: 1)
            call.push(name)
            thread.rawSet(at: 0, ofTableAt: -2)
            for (offset, argument) in arguments.enumerated() {
                call.push(argument)
                thread.rawSet(at: Int64(offset + 1), ofTableAt: -2)
            }
            // the prelude's environment maker is plain Lua that cannot fail but for memory
            guard thread.call(argumentCount: 2, resultCount: 1) else {
                throw LuaBindingError(
                    code: ErrorCode.memoryLimit, "cannot create the script's environment: \(thread.value(at: -1))")
            }
        }
    }

    /// Runs, in a new coroutine, the function and arguments `push` pushes (it returns the
    /// number of arguments), to its end, and returns its results.
    func runThread(
        name: String, push: @escaping (LuaCall) throws(LuaBindingError) -> Int32
    ) throws(LuaError) -> [LuaReturnValue] {
        let main = lua.mainThread
        let base = main.top
        defer { main.setTop(base) }
        let thread = try lua.newThread()
        // stack: ... | thread (anchored there while it runs)
        try lua.hostCall(resultCount: LuaState.allResults, failure: .runtime) { pushThread in
            let call = LuaCall(thread: pushThread, runtime: self, name: name, isMethod: false)
            do throws(LuaBindingError) {
                return .results(try push(call) + 1)
            } catch {
                pushThread.setTop(0)
                pushThread.push(error: error)
                return .error
            }
        }
        // stack: ... | thread | function | arguments...
        let count = main.top - base - 1
        guard thread.checkStack(count + 8) else { throw LuaError(.memory, message: "Lua stack overflow") }
        main.moveValues(count, to: thread)
        let results = try drive(thread, arguments: count - 1)
        defer { thread.setTop(0) }
        let top = thread.top
        return results == 0 ? [] : ((top - results + 1)...top).map { returnValue(in: thread, at: $0) }
    }

    /// Resumes `thread` until it ends, serving its waits. Returns how many results it left on
    /// its stack.
    func drive(_ thread: LuaState.Thread, arguments: Int32) throws(LuaError) -> Int32 {
        var argumentCount = arguments
        while true {
            yieldedTicket = nil
            let finished = try lua.resume(thread, argumentCount: argumentCount)
            argumentCount = 0
            if let resultCount = finished { return resultCount }
            // it yielded
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
                lua.clearInterrupt()
                thread.reset()
                throw error
            }
        }
    }

    /// An error object as JSON, `{"code": ..., "message": ..., "path": ...}` (no `path` when it
    /// has none), or `nil` when the value is not an error object.
    func errorJSON(in thread: LuaState.Thread, at index: Int32) -> JSONValue? {
        guard let error = thread.errorObject(at: index) else { return nil }
        var members: [(key: String, value: JSONValue)] = [("code", .string(error.code)), ("message", .string(error.message))]
        if let path = error.path { members.append(("path", .string(path))) }
        return .object(members)
    }

    /// A result as the shell prints it: JSON for JSON values, snapshots and error objects.
    func returnValue(in thread: LuaState.Thread, at index: Int32) -> LuaReturnValue {
        switch thread.type(at: index) {
        case .nil, .noValue: return .nil
        case .userdata:
            if thread.isNull(at: index) { return .text("ember.null") }
            if let error = errorJSON(in: thread, at: index) { return .json(error) }
            if let box = thread.object(.snapshot, at: index, as: LuaBox<DataSnapshot>.self) {
                return .json(box.value.value)
            }
            if let description = describeObject(in: thread, at: index) { return .text(description) }
        case .table, .boolean, .number, .string:
            if let json = try? thread.json(at: index) { return .json(json) }
        default: break
        }
        let typeName = thread.typeName(at: index)
        let address = thread.identity(at: index).map { String(UInt(bitPattern: $0), radix: 16) } ?? "0"
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
