import CLua
import CLuaSupport
import EmberClient
import EmberCore

/// Building the bindings and the sandbox when the runtime starts.
extension LuaRuntime {
    /// Makes a Lua function of `body` and pushes it onto `state` (inside a host call).
    /// - Returns: whether it worked (otherwise the error value is on top).
    func pushBinding(_ name: String, isMethod: Bool, onto state: OpaquePointer, _ body: @escaping LuaBinding) -> Bool {
        let box = LuaBindingBox(name: name, isMethod: isMethod, runtime: self, body: body)
        lua.closureContexts.append(box)
        return ember_lua_push_swift_function(state, LuaBindingBox.entryPoint, Unmanaged.passUnretained(box).toOpaque()) == LUA_OK
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
        let state = lua.state
        let built = lua.hostCall(resultCount: 1) { state in
            lua_createtable(state, 0, 8)
            LuaState.push(string: definition.type.name, onto: state)
            lua_setfield(state, -2, "__name")
            for (key, entries, separator) in [
                ("__methods", definition.methods, ":"), ("__fields", definition.fields, "."),
            ] {
                lua_createtable(state, 0, Int32(entries.count))
                for entry in entries {
                    guard self.pushBinding(definition.prefix + separator + entry.name, isMethod: true, onto: state, entry.body)
                    else { return EMBER_LUA_CALL_ERROR }
                    lua_setfield(state, -2, entry.name)
                }
                lua_setfield(state, -2, key)
            }
            lua_createtable(state, 0, Int32(definition.returns.count))
            for (name, type) in definition.returns {
                lua_pushinteger(state, lua_Integer(type.rawValue))
                lua_setfield(state, -2, name)
            }
            lua_setfield(state, -2, "__returns")
            for entry in definition.metamethods {
                guard self.pushBinding(definition.prefix + "." + entry.name, isMethod: false, onto: state, entry.body)
                else { return EMBER_LUA_CALL_ERROR }
                lua_setfield(state, -2, entry.name)
            }
            return 1
        }
        guard built == LUA_OK else { throw lua.popError(status: built, kind: .setup) }
        let defined = ember_lua_define_type(state, definition.type.rawValue)
        guard defined == LUA_OK else { throw lua.popError(status: defined, kind: .setup) }
    }

    /// Adds the functions of the `ember` table (`ember.null` is there already).
    func installEmberTable() throws(LuaError) {
        let functions = emberFunctions()
        let installed = lua.hostCall(resultCount: 0) { state in
            ember_lua_pushglobaltable(state)
            LuaState.push(string: "ember", onto: state)
            lua_rawget(state, -2)
            for (name, body) in functions {
                guard self.pushBinding("ember." + name, isMethod: false, onto: state, body) else { return EMBER_LUA_CALL_ERROR }
                lua_setfield(state, -2, name)
            }
            // ember.ServerValue
            lua_createtable(state, 0, 2)
            ember_lua_push_object(state, LuaObjectType.serverValue.rawValue, Unmanaged.passRetained(LuaServerValue.timestamp).toOpaque())
            lua_setfield(state, -2, "TIMESTAMP")
            let increment: LuaBinding = { call throws(LuaBindingError) in
                guard call.type(at: 1) == LUA_TNUMBER else { throw call.wrongType(at: 1, expected: "a number") }
                call.push(object: LuaServerValue.increment(try call.json(at: 1)), as: .serverValue)
                return .values(1)
            }
            guard self.pushBinding("ember.ServerValue.increment", isMethod: false, onto: state, increment) else {
                return EMBER_LUA_CALL_ERROR
            }
            lua_setfield(state, -2, "increment")
            lua_setfield(state, -2, "ServerValue")
            // ember.json.encode(value [, pretty]) and ember.json.decode(text), with the
            // conversions of LUA.md (`nil` and ember.null are null; issue 37: Lua had none).
            lua_createtable(state, 0, 2)
            let encode: LuaBinding = { call throws(LuaBindingError) in
                let value = try call.json(at: 1)
                let pretty = call.type(at: 2) == LUA_TBOOLEAN && lua_toboolean(call.state, 2) != 0
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
            guard self.pushBinding("ember.json.encode", isMethod: false, onto: state, encode) else { return EMBER_LUA_CALL_ERROR }
            lua_setfield(state, -2, "encode")
            guard self.pushBinding("ember.json.decode", isMethod: false, onto: state, decode) else { return EMBER_LUA_CALL_ERROR }
            lua_setfield(state, -2, "decode")
            lua_setfield(state, -2, "json")
            return 0
        }
        guard installed == LUA_OK else { throw lua.popError(status: installed, kind: .setup) }
    }

    /// Runs the prelude (see `LuaRuntime+Prelude.swift`) with the real globals, the wait
    /// sentinel, the metatables and the error object constructor, and keeps the environment maker and the session environment.
    func runPrelude() throws(LuaError) {
        let state = lua.state
        let base = lua_gettop(state)
        defer { lua_settop(state, base) }
        try lua.load(Self.prelude, name: "=ember", base: base)
        // stack: ... | handler | prelude
        let pushed = lua.hostCall(resultCount: 4) { state in
            ember_lua_pushglobaltable(state)
            ember_lua_push_wait_sentinel(state)
            lua_createtable(state, 0, Int32(LuaObjectType.allCases.count))
            for type in LuaObjectType.allCases {
                ember_lua_push_type_metatable(state, type.rawValue)
                lua_setfield(state, -2, type.name)
            }
            ember_lua_pushcfunction(state, ember_lua_new_error)
            return 4
        }
        guard pushed == LUA_OK else { throw lua.popError(status: pushed, kind: .setup) }
        try lua.protectedCall(argumentCount: 4, resultCount: 1, base: base)
        // stack: ... | handler | new_env
        newEnvironment = anchor(valueAt: -1, in: state)
        // the session's environment
        let made = lua.hostCall(resultCount: 1) { state in
            ember_lua_push_ref(state, self.newEnvironment)
            lua_pushnil(state)
            lua_pushnil(state)
            return ember_lua_pcall(state, 2, 1, 0) == LUA_OK ? 1 : EMBER_LUA_CALL_ERROR
        }
        guard made == LUA_OK else { throw lua.popError(status: made, kind: .setup) }
        sessionEnvironment = anchor(valueAt: -1, in: state)
        guard newEnvironment != LUA_NOREF, sessionEnvironment != LUA_NOREF else {
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
        let state = lua.state
        guard lua_checkstack(state, 1) != 0 else { return nil }
        ember_lua_push_ref(state, sessionEnvironment)
        var reference = LUA_NOREF
        guard ember_lua_ref(state, &reference) == LUA_OK else {
            ember_lua_pop(state, 1)
            return nil
        }
        return LuaTableReference(owner: lua, reference: reference)
    }
}
