import CLua
import CLuaSupport
import EmberCore

/// Compiling Lua functions once and calling them from Swift with JSON arguments.
extension LuaState {
    /// Evaluates `source`, a Lua expression that gives a function, and keeps the function.
    ///
    /// ```swift
    /// let increment = try lua.compileFunction("function(v) return (v or 0) + 1 end", name: "=transaction")
    /// try lua.call(increment, with: [41])   // [.json(42)]
    /// ```
    ///
    /// The expression runs as a chunk `return <source>`, with the limits and the interrupt of a
    /// run, so it may also name an existing function (`"string.upper"`) or build a closure.
    ///
    /// - Parameters:
    ///   - source: a Lua expression.
    ///   - name: the chunk name used in messages (`"=transaction"` shows as `transaction:1:`).
    /// - Throws: ``LuaError`` of kind `.syntax` when it does not compile, `.conversion` when it
    ///   gives something other than a function, or what ``run(chunk:name:)`` throws when
    ///   evaluating it fails.
    public func compileFunction(_ source: String, name: String) throws(LuaError) -> LuaFunctionReference {
        let base = lua_gettop(state)
        try load("return " + source, name: name, base: base)
        // stack: ... | handler | chunk
        try protectedCall(argumentCount: 0, resultCount: 1, base: base)
        // stack: ... | handler | value
        guard lua_type(state, -1) == LUA_TFUNCTION else {
            let typeName = String(cString: lua_typename(state, lua_type(state, -1)))
            lua_settop(state, base)
            throw LuaError(
                .conversion,
                message: "\(Self.displayName(of: name)): the expression gives a \(typeName), not a function")
        }
        let reference = try popIntoRegistry(base: base)
        return LuaFunctionReference(owner: self, reference: reference, name: name)
    }

    /// Stores the value on top of the stack in the registry and returns its reference; the
    /// stack is reset to `base` either way.
    /// - Throws: ``LuaError`` of kind `.memory` when the registry cannot grow.
    func popIntoRegistry(base: Int32) throws(LuaError) -> Int32 {
        var reference = LUA_NOREF
        let status = ember_lua_ref(state, &reference)
        guard status == LUA_OK else {
            let error = popError(status: status, kind: .memory)
            lua_settop(state, base)
            throw error
        }
        lua_settop(state, base)
        return reference
    }

    /// Calls `function` with `arguments` converted to Lua, and returns its results as JSON.
    ///
    /// Arguments are converted as the ``LuaState`` JSON conversion says (`null` is `nil` as an
    /// argument, `ember.null` inside tables). The call is a run: protected, with the traceback
    /// handler, the instruction and memory limits and the interrupt; it may be nested in a Swift
    /// function that Lua called. Each result keeps `nil` (``LuaResult/nil``) apart from
    /// `ember.null` (``LuaResult/null``); a function that returns nothing gives `[]`.
    ///
    /// The arguments are pushed with the memory limit suspended (the host chose them); when they
    /// take the state past its limit, the function fails with `.memory` at its first allocation.
    ///
    /// - Throws: ``LuaError`` of kind `.invalidReference` when the reference was released or
    ///   belongs to another state; `.conversion` when an argument is nested too deep or a result
    ///   is not JSON (the message names the path, and "result N" when N > 1); `.runtime` with the
    ///   traceback when the function raises; `.interrupted`, `.instructionLimit` or `.memory`
    ///   when a limit stopped it.
    /// - Complexity: O(n) in the size of the arguments plus O(m log m) in that of the results,
    ///   besides the function's own work.
    public func call(
        _ function: LuaFunctionReference, with arguments: [JSONValue] = []
    ) throws(LuaError) -> [LuaResult] {
        guard !function.isReleased else {
            throw LuaError(
                .invalidReference, message: "the function \(Self.displayName(of: function.name)) was released")
        }
        guard function.owner === self else {
            throw LuaError(
                .invalidReference,
                message: "the function \(Self.displayName(of: function.name)) belongs to another Lua state")
        }
        guard arguments.count < Int(Int32.max) - 8 else {
            throw LuaError(.memory, message: "too many arguments (\(arguments.count))")
        }
        let base = lua_gettop(state)
        guard lua_checkstack(state, 4) != 0 else {
            throw LuaError(.memory, message: "Lua stack overflow")
        }
        ember_lua_pushcfunction(state, ember_lua_traceback)
        ember_lua_push_ref(state, function.reference)
        // stack: ... | handler | function
        let argumentCount = Int32(arguments.count)
        do throws(LuaError) {
            try hostCall(resultCount: LUA_MULTRET, failure: .conversion) { thread in
                let state = thread.pointer
                guard lua_checkstack(state, argumentCount + 1) != 0 else {
                    LuaState.push(string: "too many arguments (\(argumentCount))", onto: state)
                    return .error
                }
                for (offset, argument) in arguments.enumerated() {
                    do throws(LuaConversionFailure) {
                        try LuaState.push(json: argument, onto: state)
                    } catch {
                        lua_settop(state, 0)
                        LuaState.push(string: error.message(subject: "argument \(offset + 1)"), onto: state)
                        return .error
                    }
                }
                return .results(argumentCount)
            }
        } catch {
            lua_settop(state, base)
            throw error
        }
        // stack: ... | handler | function | arguments...
        try protectedCall(argumentCount: argumentCount, resultCount: LUA_MULTRET, base: base)
        // stack: ... | handler | results...
        defer { lua_settop(state, base) }
        let top = lua_gettop(state)
        guard top > base + 1 else { return [] }
        var results: [LuaResult] = []
        results.reserveCapacity(Int(top - base - 1))
        for index in (base + 2)...top {
            do {
                results.append(try Self.result(in: state, at: index))
            } catch {
                let number = Int(index - base - 1)
                throw error.error(subject: top > base + 2 ? "result \(number)" : nil)
            }
        }
        return results
    }

    /// Runs `body` in protected mode as a host call (`ember_lua_host_pcall`) on the main thread:
    /// the memory limit is suspended while it pushes values, and an error it reports (by pushing
    /// the error value and returning ``CallStatus/error``) is raised from C, never across the
    /// Swift frame.
    ///
    /// On success the results `body` returned are on the stack (adjusted to `resultCount`, or all
    /// of them with ``allResults``), in place of the `argumentCount` arguments.
    ///
    /// - Throws: ``LuaError`` of kind `failure` (or `.memory`, `.messageHandler`) made of the
    ///   error value, which is popped.
    func hostCall(
        argumentCount: Int32 = 0, resultCount: Int32, failure: LuaError.Kind, _ body: (Thread) -> CallStatus
    ) throws(LuaError) {
        let status = withoutActuallyEscaping(body) { body in
            var context = body
            return withUnsafeMutablePointer(to: &context) { pointer in
                ember_lua_host_pcall(state, Self.hostCallEntry, pointer, argumentCount, resultCount)
            }
        }
        guard status == LUA_OK else { throw popError(status: status, kind: failure) }
    }

    /// The C entry point of ``hostCall(argumentCount:resultCount:failure:_:)``: calls the closure at `context`.
    private static let hostCallEntry: ember_lua_swift_function = { state, context in
        guard let state, let context else { return EMBER_LUA_CALL_ERROR }
        let thread = Thread(state)
        return context.assumingMemoryBound(to: ((Thread) -> CallStatus).self).pointee(thread).code(on: thread)
    }

    /// The result count that keeps every result of a call (`LUA_MULTRET`).
    static var allResults: Int32 { LUA_MULTRET }

    /// Compiles `source` and pushes it as a function onto the main thread (with no traceback
    /// handler below it, unlike ``load(_:name:base:)``).
    /// - Throws: ``LuaError`` of kind `.syntax` (or `.memory`) when it does not compile; nothing
    ///   is pushed then.
    func pushCompiled(_ source: String, name: String) throws(LuaError) {
        let loaded = source.utf8CString.withUnsafeBufferPointer { text in
            ember_luaL_loadtext(state, text.baseAddress, text.count - 1, name)
        }
        guard loaded == LUA_OK else { throw popError(status: loaded, kind: .syntax) }
    }

    /// A chunk name as messages show it: without Lua's `=` or `@` prefix.
    static func displayName(of chunkName: String) -> String {
        chunkName.first == "=" || chunkName.first == "@" ? String(chunkName.dropFirst()) : chunkName
    }
}
