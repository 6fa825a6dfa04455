import CLua
import CLuaSupport

/// Registry references: how Swift keeps Lua values (functions, tables, the script environments)
/// alive and names them later. A reference is an `Int32`; ``LuaState/noReference`` is none.
extension LuaState {
    /// The reference that names no value (`LUA_NOREF`): what a failed or released reference is.
    static var noReference: Int32 { LUA_NOREF }

    /// Releases `reference`, letting Lua collect its value; does nothing for ``noReference``.
    /// Never raises.
    func releaseReference(_ reference: Int32) {
        ember_lua_unref(state, reference)
    }
}

extension LuaState.Thread {
    /// Stores a copy of the value at `index` in the registry and returns its reference, or
    /// ``LuaState/noReference`` when the registry cannot grow. Leaves the stack as it was.
    func reference(toValueAt index: Int32) -> Int32 {
        pushCopy(of: index)
        return popIntoReference()
    }

    /// Pops the value on top into the registry and returns its reference, or
    /// ``LuaState/noReference`` (the value popped all the same) when the registry cannot grow.
    func popIntoReference() -> Int32 {
        var reference = LUA_NOREF
        if ember_lua_ref(pointer, &reference) != LUA_OK { pop(1) }
        return reference
    }

    /// Pushes the value stored under `reference` (`nil` for ``LuaState/noReference``); never
    /// allocates.
    func pushReference(_ reference: Int32) {
        ember_lua_push_ref(pointer, reference)
    }
}
