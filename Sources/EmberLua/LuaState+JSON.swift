import CLua
import CLuaSupport
import EmberCore

/// Converting between ``JSONValue`` and Lua values, as the "Values" section of LUA.md specifies.
///
/// JSON → Lua: objects become tables with string keys, arrays sequences (1-based), `.int` a Lua
/// integer and `.double` a float; `null` is `nil` at the top level and the sentinel `ember.null`
/// inside a table (a table cannot hold `nil`). A member name repeated in an object keeps its last
/// value. An empty array becomes an empty table, which reads back as an empty object.
///
/// Lua → JSON: `nil` and `ember.null` are `null`; integers `.int`, floats `.double` (even when
/// integral; NaN and infinities are errors); strings must be UTF-8. A table whose keys are all
/// positive integers is a Lua sequence, holes allowed, and becomes a Firebase array: the value at
/// Lua index `k` is the element at index `k - 1`, so `{10, 20, 30}` is stored at `0`, `1`, `2` and
/// `{10, nil, 30}` at `0` and `2`. It is written as a JSON array (holes are `null`) when its
/// largest key is at most twice its number of keys, the rule by which Firebase renders an object
/// with integer keys as an array; a sparser one is written as the object of the same children
/// (`{[5] = "x"}` is `{"4": "x"}`), which is the same data. An empty table is an empty object;
/// any other table with string and integer keys (0 or negative ones included) is an object whose
/// integer keys are written in decimal as they are, its members sorted by the bytes of their
/// keys so the output is deterministic. Tables are read raw (metatables are
/// ignored). Other key types, functions, userdata other than `ember.null`, threads, cycles and
/// nesting deeper than ``maximumJSONDepth`` are errors naming the path of the bad field, written
/// with the Lua keys (array elements by their 1-based index).
extension LuaState {
    /// How deep containers may nest when converting in either direction.
    public static let maximumJSONDepth = 512

    // MARK: JSON to Lua

    /// Pushes `value` onto `state` as Lua sees it: `null` pushes `nil`, or `ember.null` when
    /// `nested`.
    ///
    /// Pushing allocates, so this runs only inside a host call (``hostCall(argumentCount:resultCount:failure:_:)``
    /// or a Swift function called from Lua), where the memory limit is suspended.
    ///
    /// - Throws: ``LuaConversionFailure`` when containers nest deeper than ``maximumJSONDepth``
    ///   (or the Lua stack cannot grow); the stack then holds the partly built values.
    /// - Complexity: O(n) in the size of `value`.
    static func push(
        json value: JSONValue, onto state: OpaquePointer, nested: Bool = false, depth: Int = 0
    ) throws(LuaConversionFailure) {
        switch value {
        case .null:
            if nested { ember_lua_push_null(state) } else { lua_pushnil(state) }
        case .bool(let bool):
            lua_pushboolean(state, bool ? 1 : 0)
        case .int(let integer):
            lua_pushinteger(state, integer)
        case .double(let number):
            lua_pushnumber(state, number)
        case .string(let string):
            push(string: string, onto: state)
        case .array(let elements):
            guard depth < maximumJSONDepth, lua_checkstack(state, 2) != 0 else {
                throw LuaConversionFailure(.tooDeep)
            }
            lua_createtable(state, Int32(clamping: elements.count), 0)
            for (offset, element) in elements.enumerated() {
                do {
                    try push(json: element, onto: state, nested: true, depth: depth + 1)
                } catch {
                    throw error.inside(String(offset + 1))
                }
                lua_rawseti(state, -2, lua_Integer(offset + 1))
            }
        case .object(let members):
            guard depth < maximumJSONDepth, lua_checkstack(state, 3) != 0 else {
                throw LuaConversionFailure(.tooDeep)
            }
            lua_createtable(state, 0, Int32(clamping: members.count))
            for member in members {
                push(string: member.key, onto: state)
                do {
                    try push(json: member.value, onto: state, nested: true, depth: depth + 1)
                } catch {
                    throw error.inside(member.key)
                }
                lua_rawset(state, -3)
            }
        }
    }

    /// Pushes the UTF-8 bytes of `string` (allocates: see ``push(json:onto:nested:depth:)``).
    static func push(string: String, onto state: OpaquePointer) {
        var string = string
        string.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { _ = lua_pushlstring(state, $0.baseAddress, $0.count) }
        }
    }

    // MARK: Lua to JSON

    /// The value at stack index `index` of `state` as JSON. Never raises and never allocates in
    /// Lua (numbers are not turned into strings), so it is safe to call from Swift at any time.
    ///
    /// - Throws: ``LuaConversionFailure`` for a value that is not JSON.
    /// - Complexity: O(n log n) in the number of table entries reached (object keys are sorted).
    static func json(in state: OpaquePointer, at index: Int32) throws(LuaConversionFailure) -> JSONValue {
        var reader = JSONReader(state: state)
        return try reader.read(at: lua_absindex(state, index), depth: 0)
    }

    /// What a called function returned at stack index `index`: `nil`, `ember.null` or JSON.
    static func result(in state: OpaquePointer, at index: Int32) throws(LuaConversionFailure) -> LuaResult {
        if lua_type(state, index) == LUA_TNIL { return .nil }
        if ember_lua_is_null(state, index) != 0 { return .null }
        return .json(try json(in: state, at: index))
    }
}

extension JSONReader {
    /// How a userdata that is not JSON is named in messages: its object class, or "userdata".
    static func describe(_ state: OpaquePointer, _ index: Int32) -> String {
        LuaState.Thread(state).objectType(at: index).map { "\($0.name) userdata" }
            ?? "userdata"
    }
}

/// Reads a Lua value into a ``JSONValue``, tracking the tables being read to detect cycles.
private struct JSONReader {
    /// A table key, before the table is known to be an array or an object.
    enum Key {
        case integer(Int64)
        case string(String)
    }

    /// The state read from.
    let state: OpaquePointer

    /// The tables on the path being read, with their depth.
    var open: [UnsafeRawPointer: Int] = [:]

    /// Reads the value at the absolute stack index `index`, `depth` tables below the root.
    mutating func read(at index: Int32, depth: Int) throws(LuaConversionFailure) -> JSONValue {
        switch lua_type(state, index) {
        case LUA_TNIL, LUA_TNONE:
            return .null
        case LUA_TBOOLEAN:
            return .bool(lua_toboolean(state, index) != 0)
        case LUA_TNUMBER:
            if lua_isinteger(state, index) != 0 {
                return .int(lua_tointegerx(state, index, nil))
            }
            let number = lua_tonumberx(state, index, nil)
            guard number.isFinite else { throw LuaConversionFailure(.notFinite(number)) }
            return .double(number)
        case LUA_TSTRING:
            guard let string = string(at: index) else { throw LuaConversionFailure(.invalidString) }
            return .string(string)
        case LUA_TTABLE:
            return try readTable(at: index, depth: depth)
        case LUA_TUSERDATA where ember_lua_is_null(state, index) != 0:
            return .null
        case LUA_TUSERDATA:
            guard let pointer = ember_lua_to_object(state, index, LuaObjectType.serverValue.rawValue) else {
                throw LuaConversionFailure(.notJSON(typeName: JSONReader.describe(state, index)))
            }
            return Unmanaged<LuaServerValue>.fromOpaque(pointer).takeUnretainedValue().json
        case let type:
            throw LuaConversionFailure(.notJSON(typeName: String(cString: lua_typename(state, type))))
        }
    }

    /// The string at `index` (which must be a string, not a number), or `nil` when it is not UTF-8.
    func string(at index: Int32) -> String? {
        var length = 0
        guard let bytes = lua_tolstring(state, index, &length) else { return nil }
        return LuaState.utf8String(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// Reads the table at `index` as an array or an object.
    mutating func readTable(at index: Int32, depth: Int) throws(LuaConversionFailure) -> JSONValue {
        guard depth < LuaState.maximumJSONDepth, lua_checkstack(state, 3) != 0 else {
            throw LuaConversionFailure(.tooDeep)
        }
        guard let identity = lua_topointer(state, index) else { return .object([]) }
        if let ancestorDepth = open[identity] {
            throw LuaConversionFailure(.cycle(ancestorDepth: ancestorDepth))
        }
        open[identity] = depth
        defer { open[identity] = nil }

        var entries: [(key: Key, value: JSONValue)] = []
        var integerKeysOnly = true
        lua_pushnil(state)
        // stack: ... | key
        while lua_next(state, index) != 0 {
            // stack: ... | key | value
            let keyIndex = lua_gettop(state) - 1
            let key = try readKey(at: keyIndex)
            let value: JSONValue
            do {
                value = try read(at: keyIndex + 1, depth: depth + 1)
            } catch {
                throw error.inside(Self.text(of: key))
            }
            if case .string = key { integerKeysOnly = false }
            entries.append((key, value))
            lua_settop(state, keyIndex)
        }
        if integerKeysOnly, !entries.isEmpty, let sequence = Self.sequence(from: entries) {
            return sequence
        }
        return .object(try Self.members(from: entries))
    }

    /// The key at `index`, which must be a string or an integer.
    func readKey(at index: Int32) throws(LuaConversionFailure) -> Key {
        switch lua_type(state, index) {
        case LUA_TSTRING:
            guard let string = string(at: index) else { throw LuaConversionFailure(.invalidStringKey) }
            return .string(string)
        case LUA_TNUMBER where lua_isinteger(state, index) != 0:
            return .integer(lua_tointegerx(state, index, nil))
        case LUA_TNUMBER:
            // integral floats are normalised to integer keys by Lua, so this one has a fraction
            throw LuaConversionFailure(.badKey("\(lua_tonumberx(state, index, nil))"))
        case LUA_TBOOLEAN:
            throw LuaConversionFailure(.badKey(lua_toboolean(state, index) != 0 ? "true" : "false"))
        case let type:
            throw LuaConversionFailure(.badKey("of type \(String(cString: lua_typename(state, type)))"))
        }
    }

    /// The entries of a Lua sequence (every key a positive integer, holes allowed) as the
    /// Firebase array of their values at `key - 1`: a JSON array, holes `null`, when the largest
    /// key is at most twice the number of entries, else the object of those indexes. `nil` when
    /// a key is not a positive integer.
    static func sequence(from entries: [(key: Key, value: JSONValue)]) -> JSONValue? {
        var largest: Int64 = 0
        for entry in entries {
            guard case .integer(let key) = entry.key, key >= 1 else { return nil }
            largest = max(largest, key)
        }
        guard largest <= 2 * Int64(entries.count) else {
            let members = entries.map { entry -> (key: Int64, value: JSONValue) in
                guard case .integer(let key) = entry.key else { return (0, entry.value) }
                return (key - 1, entry.value)
            }
            return .object(members.sorted { String($0.key).utf8.lexicographicallyPrecedes(String($1.key).utf8) }
                .map { (key: String($0.key), value: $0.value) })
        }
        var elements = [JSONValue](repeating: .null, count: Int(largest))
        for entry in entries {
            guard case .integer(let key) = entry.key else { continue }
            elements[Int(key - 1)] = entry.value
        }
        return .array(elements)
    }

    /// The entries as object members with string keys, sorted by the bytes of their keys.
    static func members(
        from entries: [(key: Key, value: JSONValue)]
    ) throws(LuaConversionFailure) -> [(key: String, value: JSONValue)] {
        var members = entries.map { (key: text(of: $0.key), value: $0.value, isInteger: $0.key.isInteger) }
        members.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        for (first, second) in zip(members, members.dropFirst()) where first.key.utf8.elementsEqual(second.key.utf8) {
            // only an integer key and a string key can collide
            throw LuaConversionFailure(.collidingKeys(Int64(first.key) ?? 0))
        }
        return members.map { (key: $0.key, value: $0.value) }
    }

    /// A key as a path component and object member name (integers in decimal).
    static func text(of key: Key) -> String {
        switch key {
        case .integer(let integer): String(integer)
        case .string(let string): string
        }
    }
}

extension JSONReader.Key {
    /// Whether the key is an integer.
    var isInteger: Bool {
        if case .integer = self { true } else { false }
    }
}
