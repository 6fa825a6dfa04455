import CLua
import CLuaSupport

/// Swift objects held by Lua as full userdata, one metatable per ``LuaObjectType``.
extension LuaState {
    /// Makes the `__gc` of every object type release the Swift object its userdata retains.
    func releasesObjectsWhenCollected() {
        ember_lua_set_release_function(state, Self.releaseEntry)
    }

    /// The C entry point `__gc` calls: releases the retained Swift object.
    private static let releaseEntry: ember_lua_release_function = { pointer in
        guard let pointer else { return }
        Unmanaged<AnyObject>.fromOpaque(pointer).release()
    }

    /// Pops the table on top of the main thread and makes it the metatable of `type` (adding
    /// `__gc` and `__metatable`).
    /// - Throws: ``LuaError`` of kind `.setup` when it fails (out of memory).
    func defineType(_ type: LuaObjectType) throws(LuaError) {
        let defined = ember_lua_define_type(state, type.rawValue)
        guard defined == LUA_OK else { throw popError(status: defined, kind: .setup) }
    }
}

extension LuaState.Thread {
    /// Pushes a new userdata of `type` holding `object`, retained until Lua collects it
    /// (allocates).
    func push(object: AnyObject, as type: LuaObjectType) {
        ember_lua_push_object(pointer, type.rawValue, Unmanaged.passRetained(object).toOpaque())
    }

    /// The Swift object held by the userdata at `index` when it is of `type`, else `nil`.
    func object<Object: AnyObject>(_ type: LuaObjectType, at index: Int32, as: Object.Type = Object.self) -> Object? {
        guard let object = ember_lua_to_object(pointer, index, type.rawValue) else { return nil }
        return Unmanaged<Object>.fromOpaque(object).takeUnretainedValue()
    }

    /// The type of the Ember object at `index`, or `nil` for any other value.
    func objectType(at index: Int32) -> LuaObjectType? {
        LuaObjectType.allCases.first { ember_lua_to_object(pointer, index, $0.rawValue) != nil }
    }

    /// Pushes the metatable of `type` (`nil` when it is not defined; never allocates).
    func pushMetatable(of type: LuaObjectType) {
        _ = ember_lua_push_type_metatable(pointer, type.rawValue)
    }
}
