import CLua

/// Building and reading tables on a thread's stack.
///
/// The functions that set fields may allocate (and `setField` may run a `__newindex`): they only
/// run inside a host call or a Swift function called from Lua, whose C frame a failure unwinds to.
extension LuaState.Thread {
    /// Pushes a new table with room for `arrayCount` sequence elements and `fieldCount` other
    /// fields.
    func createTable(arrayCount: Int32 = 0, fieldCount: Int32 = 0) { lua_createtable(pointer, arrayCount, fieldCount) }

    /// Pops the value on top and stores it as the field `name` of the table at `index`
    /// (`t[name] = v`, metamethods included).
    func setField(_ name: String, ofTableAt index: Int32) { lua_setfield(pointer, index, name) }

    /// Pops a key and a value (the value on top) and stores them in the table at `index`
    /// without metamethods.
    func rawSet(ofTableAt index: Int32) { lua_rawset(pointer, index) }

    /// Pops the value on top and stores it at the integer key `key` of the table at `index`
    /// without metamethods.
    func rawSet(at key: Int64, ofTableAt index: Int32) { lua_rawseti(pointer, index, key) }

    /// Pushes the raw field `key` of the table at `index` (metamethods are not run) and returns
    /// its type.
    func pushRawField(_ key: String, ofTableAt index: Int32) -> LuaState.ValueType {
        let table = lua_absindex(pointer, index)
        push(string: key)
        return LuaState.ValueType(code: lua_rawget(pointer, table))
    }

    /// Pushes the table of globals (never allocates, never raises).
    func pushGlobalTable() { ember_lua_pushglobaltable(pointer) }
}
