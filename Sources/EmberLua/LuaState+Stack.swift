import CLua

/// Reading and pushing values on the Lua stack.
///
/// Reading never raises. Pushing may raise a memory error, so `push` is only called from inside
/// a Swift function called through the trampoline, where the memory limit is suspended and the
/// trampoline's C frame is the one a failure would unwind to.
extension LuaState {
    /// The value at stack index `index`, converted without side effects (numbers are not turned
    /// into strings in place).
    func value(at index: Int32) -> LuaValue {
        Self.value(in: state, at: index)
    }

    /// The value at stack index `index` of `state`.
    static func value(in state: OpaquePointer, at index: Int32) -> LuaValue {
        switch lua_type(state, index) {
        case LUA_TNIL, LUA_TNONE:
            return .nil
        case LUA_TBOOLEAN:
            return .boolean(lua_toboolean(state, index) != 0)
        case LUA_TNUMBER:
            if lua_isinteger(state, index) != 0 {
                return .integer(lua_tointegerx(state, index, nil))
            }
            return .number(lua_tonumberx(state, index, nil))
        case LUA_TSTRING:
            var length = 0
            guard let bytes = lua_tolstring(state, index, &length) else { return .nil }
            let buffer = UnsafeRawBufferPointer(start: bytes, count: length)
            return .string(String(decoding: buffer, as: UTF8.self))
        case let type:
            return .other(typeName: String(cString: lua_typename(state, type)))
        }
    }

    /// Pushes `value` onto `state`; values that are not converted (`.other`) push `nil`.
    static func push(_ value: LuaValue, onto state: OpaquePointer) {
        switch value {
        case .nil, .other:
            lua_pushnil(state)
        case .boolean(let bool):
            lua_pushboolean(state, bool ? 1 : 0)
        case .integer(let integer):
            lua_pushinteger(state, integer)
        case .number(let number):
            lua_pushnumber(state, number)
        case .string(let string):
            var string = string
            string.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { _ = lua_pushlstring(state, $0.baseAddress, $0.count) }
            }
        }
    }
}
