import EmberClient
import EmberCore

/// Building the bindings and the sandbox when the runtime starts.
extension LuaRuntime {
    /// Makes a Lua function of `body` and pushes it onto `thread` (inside a host call).
    /// - Returns: whether it worked (otherwise the error value is on top).
    func pushBinding(_ name: String, isMethod: Bool, onto thread: LuaState.Thread, _ body: @escaping LuaBinding) -> Bool {
        lua.pushFunction(LuaBindingBox(name: name, isMethod: isMethod, runtime: self, body: body), onto: thread)
    }

    /// Defines every object type's metatable.
    func defineTypes() throws(LuaError) {
        for definition in [
            databaseDefinition(), referenceDefinition(), queryDefinition(), snapshotDefinition(),
            onDisconnectDefinition(), writeHandleDefinition(), listenerDefinition(), serverValueDefinition(),
        ] {
            try define(definition)
        }
    }

    /// Builds the metatable of `definition`: `__name`, the methods in `__methods` and the fields
    /// in `__fields` (the prelude turns them into `__index`), the types they give in `__returns`
    /// (type numbers, for completion), and the metamethods.
    func define(_ definition: LuaTypeDefinition) throws(LuaError) {
        try lua.hostCall(resultCount: 1, failure: .setup) { thread in
            thread.createTable(fieldCount: 8)
            thread.push(string: definition.type.name)
            thread.setField("__name", ofTableAt: -2)
            for (key, entries, separator) in [
                ("__methods", definition.methods, ":"), ("__fields", definition.fields, "."),
            ] {
                thread.createTable(fieldCount: Int32(entries.count))
                for entry in entries {
                    guard self.pushBinding(definition.prefix + separator + entry.name, isMethod: true, onto: thread, entry.body)
                    else { return .error }
                    thread.setField(entry.name, ofTableAt: -2)
                }
                thread.setField(key, ofTableAt: -2)
            }
            thread.createTable(fieldCount: Int32(definition.returns.count))
            for (name, type) in definition.returns {
                thread.push(Int64(type.rawValue))
                thread.setField(name, ofTableAt: -2)
            }
            thread.setField("__returns", ofTableAt: -2)
            for entry in definition.metamethods {
                guard self.pushBinding(definition.prefix + "." + entry.name, isMethod: false, onto: thread, entry.body)
                else { return .error }
                thread.setField(entry.name, ofTableAt: -2)
            }
            return .results(1)
        }
        try lua.defineType(definition.type)
    }

    /// Adds the functions of the `ember` table (`ember.null` is there already).
    func installEmberTable() throws(LuaError) {
        let functions = emberFunctions()
        try lua.hostCall(resultCount: 0, failure: .setup) { thread in
            thread.pushGlobalTable()
            _ = thread.pushRawField("ember", ofTableAt: -1)
            for (name, body) in functions {
                guard self.pushBinding("ember." + name, isMethod: false, onto: thread, body) else { return .error }
                thread.setField(name, ofTableAt: -2)
            }
            // ember.ServerValue
            thread.createTable(fieldCount: 2)
            thread.push(object: LuaServerValue.timestamp, as: .serverValue)
            thread.setField("TIMESTAMP", ofTableAt: -2)
            let increment: LuaBinding = { call throws(LuaBindingError) in
                guard call.type(at: 1) == .number else { throw call.wrongType(at: 1, expected: "a number") }
                call.push(object: LuaServerValue.increment(try call.json(at: 1)), as: .serverValue)
                return .values(1)
            }
            guard self.pushBinding("ember.ServerValue.increment", isMethod: false, onto: thread, increment) else {
                return .error
            }
            thread.setField("increment", ofTableAt: -2)
            thread.setField("ServerValue", ofTableAt: -2)
            // ember.json.encode(value [, pretty]) and ember.json.decode(text), with the
            // conversions of LUA.md (`nil` and ember.null are null; issue 37: Lua had none).
            thread.createTable(fieldCount: 2)
            let encode: LuaBinding = { call throws(LuaBindingError) in
                let value = try call.json(at: 1)
                let pretty = call.type(at: 2) == .boolean && call.thread.isTrue(at: 2)
                call.push(value.serialized(pretty: pretty))
                return .values(1)
            }
            let decode: LuaBinding = { call throws(LuaBindingError) in
                let text = try call.string(at: 1, expected: "JSON text")
                let value: JSONValue
                do throws(DatabaseError) {
                    value = try JSONValue(parsing: text)
                } catch {
                    throw call.failure(code: error.code, error.message)
                }
                try call.push(json: value)
                return .values(1)
            }
            guard self.pushBinding("ember.json.encode", isMethod: false, onto: thread, encode) else { return .error }
            thread.setField("encode", ofTableAt: -2)
            guard self.pushBinding("ember.json.decode", isMethod: false, onto: thread, decode) else { return .error }
            thread.setField("decode", ofTableAt: -2)
            thread.setField("json", ofTableAt: -2)
            return .results(0)
        }
    }

    /// Runs the prelude (see `LuaRuntime+Prelude.swift`) with the real globals, the wait
    /// sentinel, the metatables, the error object constructor and the `__index` maker, and keeps the environment maker and the session environment.
    func runPrelude() throws(LuaError) {
        let main = lua.mainThread
        let base = main.top
        defer { main.setTop(base) }
        try lua.load(Self.prelude, name: "=ember", base: base)
        // stack: ... | handler | prelude
        try lua.hostCall(resultCount: 5, failure: .setup) { thread in
            thread.pushGlobalTable()
            thread.pushWaitSentinel()
            thread.createTable(fieldCount: Int32(LuaObjectType.allCases.count))
            for type in LuaObjectType.allCases {
                thread.pushMetatable(of: type)
                thread.setField(type.name, ofTableAt: -2)
            }
            thread.pushErrorConstructor()
            thread.pushIndexMaker()
            return .results(5)
        }
        try lua.protectedCall(argumentCount: 5, resultCount: 1, base: base)
        // stack: ... | handler | new_env
        newEnvironment = anchor(valueAt: -1, in: main)
        // the session's environment
        try lua.hostCall(resultCount: 1, failure: .setup) { thread in
            thread.pushReference(self.newEnvironment)
            thread.pushNil()
            thread.pushNil()
            return thread.call(argumentCount: 2, resultCount: 1) ? .results(1) : .error
        }
        sessionEnvironment = anchor(valueAt: -1, in: main)
        guard newEnvironment != LuaState.noReference, sessionEnvironment != LuaState.noReference else {
            throw LuaError(.setup, message: "cannot keep the script environments: out of memory")
        }
    }

    /// Binds `db` in the session's globals to the current client, as running a chunk there
    /// does, without running any code of the user's: completion, which never runs Lua, finds
    /// `db` and its methods before the first chunk has run (issue 37: `db:r<Tab>` offered
    /// nothing in a fresh Lua mode).
    public func bindSessionDatabase() {
        _ = try? run("", name: "=lua", in: .session)
    }

    /// A reference to the session's global table, for completion
    /// (``LuaState/completions(for:globals:)``).
    public func sessionGlobalsReference() -> LuaTableReference? {
        let main = lua.mainThread
        guard main.checkStack(1) else { return nil }
        main.pushReference(sessionEnvironment)
        let reference = main.popIntoReference()
        guard reference != LuaState.noReference else { return nil }
        return LuaTableReference(owner: lua, reference: reference)
    }
}
