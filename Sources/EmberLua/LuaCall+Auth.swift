import CLua
import EmberCore
import EmberWire

/// The arguments of `db:auth` and `ember.client(name, {auth = ...})`.
extension LuaCall {
    /// Argument `index` as the claims of a user: a table such as `{uid = "alice", admin = true}`.
    func claims(at index: Int32) throws(LuaBindingError) -> JSONValue {
        guard lua_type(state, index) == LUA_TTABLE else {
            throw wrongType(at: index, expected: "a table of claims such as {uid = \"alice\"}")
        }
        return try json(at: index)
    }

    /// The token lifetime of an options table `{expires = MS}` at `index` (absent: an hour).
    func tokenLifetime(optionsAt index: Int32) throws(LuaBindingError) -> Int64 {
        guard !isAbsent(index) else { return AuthToken.defaultLifetime }
        guard lua_type(state, index) == LUA_TTABLE else { throw wrongType(at: index, expected: "a table of options {expires = MS}") }
        defer { lua_settop(state, index) }
        guard pushField("expires", ofTableAt: index) != LUA_TNIL else { return AuthToken.defaultLifetime }
        // The range is the token's to check (`AuthToken.unsigned`).
        guard lua_isinteger(state, -1) != 0 else { throw error(at: index, "expires must be an integer number of milliseconds") }
        return lua_tointegerx(state, -1, nil)
    }
}
