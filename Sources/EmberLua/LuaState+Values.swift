import CLua
import CLuaSupport
import EmberCore

/// Reading and pushing single values on a thread's stack.
extension LuaState.Thread {
    // MARK: reading (never raises, never allocates)

    /// The type of the value at `index`.
    func type(at index: Int32) -> LuaState.ValueType { LuaState.ValueType(code: lua_type(pointer, index)) }

    /// The name Lua gives the type of the value at `index` ("table", "no value").
    func typeName(at index: Int32) -> String { String(cString: lua_typename(pointer, lua_type(pointer, index))) }

    /// Whether the value at `index` is an integer (not a float, not a string).
    func isInteger(at index: Int32) -> Bool { lua_isinteger(pointer, index) != 0 }

    /// The value at `index` as an integer (0 when it is not one).
    func integer(at index: Int32) -> Int64 { lua_tointegerx(pointer, index, nil) }

    /// The value at `index` as a float (0 when it is not a number).
    func number(at index: Int32) -> Double { lua_tonumberx(pointer, index, nil) }

    /// Whether the value at `index` is true as Lua tests it: anything but `nil` and `false`.
    func isTrue(at index: Int32) -> Bool { lua_toboolean(pointer, index) != 0 }

    /// The string at `index` (which must be a string: a number would be converted in place), or
    /// `nil` when it is not valid UTF-8.
    func string(at index: Int32) -> String? {
        var length = 0
        guard let bytes = lua_tolstring(pointer, index, &length) else { return nil }
        return LuaState.utf8String(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// The address that identifies the table, function, userdata or thread at `index` (`nil`
    /// for other values), as `tostring` shows it.
    func identity(at index: Int32) -> UnsafeRawPointer? { lua_topointer(pointer, index) }

    /// Whether the value at `index` is `ember.null`.
    func isNull(at index: Int32) -> Bool { ember_lua_is_null(pointer, index) != 0 }

    /// The value at `index`, converted without side effects (see ``LuaState/value(at:)``).
    func value(at index: Int32) -> LuaValue { LuaState.value(in: pointer, at: index) }

    /// The value at `index` as JSON (see ``LuaState/json(in:at:)``).
    /// - Throws: ``LuaConversionFailure`` for a value that is not JSON.
    func json(at index: Int32) throws(LuaConversionFailure) -> JSONValue { try LuaState.json(in: pointer, at: index) }

    // MARK: pushing

    /// Pushes `nil`.
    func pushNil() { lua_pushnil(pointer) }

    /// Pushes a boolean.
    func push(_ flag: Bool) { lua_pushboolean(pointer, flag ? 1 : 0) }

    /// Pushes an integer.
    func push(_ integer: Int64) { lua_pushinteger(pointer, integer) }

    /// Pushes a float.
    func push(_ number: Double) { lua_pushnumber(pointer, number) }

    /// Pushes a string (allocates).
    func push(string: String) { LuaState.push(string: string, onto: pointer) }

    /// Pushes `value`; values that are not converted (`.other`) push `nil`.
    func push(_ value: LuaValue) { LuaState.push(value, onto: pointer) }

    /// Pushes a JSON value as ``LuaState/push(json:onto:nested:depth:)`` does (allocates).
    /// - Throws: ``LuaConversionFailure`` when the value is nested too deep.
    func push(json value: JSONValue) throws(LuaConversionFailure) { try LuaState.push(json: value, onto: pointer) }
}

extension LuaState {
    /// `bytes` as a string, or `nil` when they are not UTF-8. ASCII (keys, paths, most text) is
    /// taken as it is, checked a byte at a time: the generic validating initializer cost a short
    /// key about 1,000 instructions, a fiftieth of a Lua `set` (callgrind).
    /// - Complexity: O(n) in the length of the bytes.
    static func utf8String(_ bytes: UnsafeRawBufferPointer) -> String? {
        if !bytes.contains(where: { $0 >= 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }
}
