import EmberCore
import EmberLua
import Testing

/// JSON ↔ Lua conversion (LUA.md "Values"), through functions called with JSON arguments.
@Suite struct LuaValueConversionTests {
    /// Passes `value` to Lua and returns what Lua hands back.
    private func roundTrip(_ value: JSONValue, in lua: LuaState) throws -> [LuaResult] {
        let identity = try lua.compileFunction("function(...) return ... end", name: "=identity")
        return try lua.call(identity, with: [value])
    }

    /// Evaluates `expression` in a function of no arguments and returns its results.
    private func evaluate(_ expression: String, in lua: LuaState) throws -> [LuaResult] {
        let function = try lua.compileFunction("function() \(expression) end", name: "=test")
        return try lua.call(function)
    }

    /// The error of converting what `body` (Lua statements) returns.
    private func conversionError(_ body: String, in lua: LuaState) throws -> LuaError {
        let function = try lua.compileFunction("function() \(body) end", name: "=test")
        let error = try #require(throws: LuaError.self) { try lua.call(function) }
        #expect(error.kind == .conversion)
        return error
    }

    @Test(arguments: [
        true, false, 0, 42, -7, JSONValue.int(.max), JSONValue.int(.min), 2.5, -0.125, 1e300, "", "héllo ✓",
        "a\u{0}b", [1, 2, 3], ["x", ["y", ["z"]]], [:], ["a": 1], ["a": ["b": ["c": "deep"]]],
        ["list": [1, "two", 3.5, false], "n": 0],
    ] as [JSONValue])
    func everyKindRoundTrips(value: JSONValue) throws {
        let lua = try LuaState()
        #expect(try roundTrip(value, in: lua) == [.json(value)])
    }

    @Test func emptyArrayBecomesEmptyObject() throws {
        // Lua cannot tell an empty sequence from an empty table: an empty table is an object
        let lua = try LuaState()
        #expect(try roundTrip([], in: lua) == [.json([:])])
        #expect(try roundTrip(["a": []], in: lua) == [.json(["a": [:]])])
    }

    @Test func topLevelNullIsNil() throws {
        let lua = try LuaState()
        let isNil = try lua.compileFunction("function(v) return v == nil, select('#', v) end", name: "=test")
        #expect(try lua.call(isNil, with: [.null]) == [.json(true), .json(1)])
        #expect(try roundTrip(.null, in: lua) == [.nil])
    }

    @Test func nestedNullsAreEmberNull() throws {
        let lua = try LuaState()
        let inspect = try lua.compileFunction(
            "function(v) return v.a == ember.null, v.list[2] == ember.null, #v.list, tostring(v.a), type(v.a) end",
            name: "=test")
        let value: JSONValue = ["a": nil, "list": [1, nil, 3]]
        #expect(try lua.call(inspect, with: [value]) == [
            .json(true), .json(true), .json(3), .json("ember.null"), .json("userdata"),
        ])
        // and they come back as JSON null, the object's keys sorted
        #expect(try roundTrip(value, in: lua) == [.json(["a": nil, "list": [1, nil, 3]])])
    }

    @Test func emberNullIsUniqueAndReadOnly() throws {
        let lua = try LuaState()
        #expect(try lua.run(chunk: "return getmetatable(ember.null)", name: "=test") == [.string("ember.null")])
        #expect(throws: LuaError.self) { try lua.run(chunk: "ember.null.x = 1", name: "=test") }
        #expect(throws: LuaError.self) { try lua.run(chunk: "return ember.null.x", name: "=test") }
        #expect(throws: LuaError.self) { try lua.run(chunk: "setmetatable(ember.null, {})", name: "=test") }
        // replacing the field does not change what converts to null
        let keep = try lua.compileFunction(
            "function() local n = ember.null; ember.null = 1; return n end", name: "=test")
        #expect(try lua.call(keep) == [.null])
        #expect(try evaluate("return {x = 1}", in: lua) == [.json(["x": 1])])
    }

    @Test func integersStayIntegersAndFloatsFloats() throws {
        let lua = try LuaState()
        let types = try lua.compileFunction(
            "function(a, b, t) return math.type(a), math.type(b), math.type(t.i), math.type(t.f) end", name: "=test")
        #expect(try lua.call(types, with: [1, 1.0, ["i": 2, "f": 2.0]]) == [
            .json("integer"), .json("float"), .json("integer"), .json("float"),
        ])
        #expect(try evaluate("return 3, 3.0, 2^53, 7 // 2, 7 / 2", in: lua) == [
            .json(.int(3)), .json(.double(3)), .json(.double(9_007_199_254_740_992)), .json(.int(3)),
            .json(.double(3.5)),
        ])
    }

    @Test func sequencesAreArraysAndOtherTablesObjects() throws {
        let lua = try LuaState()
        #expect(try evaluate("return {10, 20, 30}", in: lua) == [.json([10, 20, 30])])
        #expect(try evaluate("return {[1] = 'a', [2] = 'b'}", in: lua) == [.json(["a", "b"])])
        #expect(try evaluate("return {}", in: lua) == [.json([:])])
        // a key 0 or below: an object with the keys as written, in decimal, sorted by bytes
        #expect(try evaluate("return {[0] = 'z', [1] = 'a'}", in: lua) == [.json(["0": "z", "1": "a"])])
        #expect(try evaluate("return {[-1] = 'm'}", in: lua) == [.json(["-1": "m"])])
        // mixed integer and string keys: an object
        #expect(try evaluate("return {'first', name = 'x', [5] = true}", in: lua) == [
            .json(["1": "first", "5": true, "name": "x"])
        ])
        // integral float keys are integer keys in Lua
        #expect(try evaluate("return {[1.0] = 'a', [2.0] = 'b'}", in: lua) == [.json(["a", "b"])])
    }

    /// Issue 18, item 9: `{10, nil, 30}` went to keys "1" and "3" (an object) while `{10, 20, 30}`
    /// went to 0, 1, 2. One rule now: positive integer keys, holes allowed, are array indexes
    /// `key - 1`; a JSON array while at most half of it is holes, else the object of the same
    /// indexes (the same children in the database).
    @Test func sequencesWithHolesAreArraysAtTheSameIndexes() throws {
        let lua = try LuaState()
        #expect(try evaluate("return {10, nil, 30}", in: lua) == [.json([10, nil, 30])])
        #expect(try evaluate("return {[1] = 'a', [3] = 'c'}", in: lua) == [.json(["a", nil, "c"])])
        #expect(try evaluate("return {[2] = 'b'}", in: lua) == [.json([nil, "b"])])
        #expect(try evaluate("return {[2] = 'b', [4] = 'd'}", in: lua) == [.json([nil, "b", nil, "d"])])
        // sparser: the same indexes as an object, sorted by bytes
        #expect(try evaluate("return {[3] = 'c'}", in: lua) == [.json(["2": "c"])])
        #expect(try evaluate("return {[2] = 'b', [10] = 'j'}", in: lua) == [.json(["1": "b", "9": "j"])])
        #expect(try evaluate("return {[1] = 1, [1000000000] = 2}", in: lua) == [.json(["0": 1, "999999999": 2])])
    }

    @Test func objectMembersAreSortedByBytes() throws {
        let lua = try LuaState()
        let results = try evaluate("return {b = 1, a = 2, B = 3, ['é'] = 4, aa = 5, [''] = 6}", in: lua)
        guard case .json(.object(let members)) = results.first else {
            Issue.record("not an object: \(results)")
            return
        }
        #expect(members.map(\.key) == ["", "B", "a", "aa", "b", "é"])
    }

    @Test func objectKeysFromJSONStayStrings() throws {
        let lua = try LuaState()
        let keyType = try lua.compileFunction("function(v) local k = next(v) return type(k) end", name: "=test")
        #expect(try lua.call(keyType, with: [["1": "x"]]) == [.json("string")])
        // an object whose keys look like indices comes back as an object
        #expect(try roundTrip(["1": "x"], in: lua) == [.json(["1": "x"])])
    }

    @Test func nonJSONValuesAreErrorsWithTheirPath() throws {
        let lua = try LuaState()
        #expect(try conversionError("return {a = {b = print}}", in: lua).message
            == "cannot convert the value at /a/b: a function is not JSON")
        #expect(try conversionError("return print", in: lua).message
            == "cannot convert the value at /: a function is not JSON")
        #expect(try conversionError("return {list = {1, 2, coroutine.create(print)}}", in: lua).message
            == "cannot convert the value at /list/3: a thread is not JSON")
    }

    @Test func userdataOtherThanNullIsAnError() throws {
        let lua = try LuaState(configuration: LuaConfiguration(libraries: .all))
        #expect(try conversionError("return {file = io.stdout}", in: lua).message
            == "cannot convert the value at /file: a userdata is not JSON")
    }

    @Test func nonFiniteNumbersAreErrors() throws {
        let lua = try LuaState()
        #expect(try conversionError("return {a = 0/0}", in: lua).message.hasPrefix("cannot convert the value at /a: "))
        #expect(try conversionError("return {a = {1, math.huge}}", in: lua).message
            == "cannot convert the value at /a/2: inf is not a JSON number")
        #expect(try conversionError("return -math.huge", in: lua).message
            == "cannot convert the value at /: -inf is not a JSON number")
    }

    @Test func badKeysAreErrors() throws {
        let lua = try LuaState()
        #expect(try conversionError("return {a = {[1.5] = 'x'}}", in: lua).message
            == "cannot convert the value at /a: the key 1.5 is neither a string nor an integer")
        #expect(try conversionError("return {[true] = 1}", in: lua).message
            == "cannot convert the value at /: the key true is neither a string nor an integer")
        #expect(try conversionError("return {a = {[{}] = 1}}", in: lua).message
            == "cannot convert the value at /a: the key of type table is neither a string nor an integer")
        #expect(try conversionError("return {[1] = 'int', ['1'] = 'str'}", in: lua).message
            == #"cannot convert the value at /: the keys 1 and "1" name the same member"#)
    }

    @Test func invalidUTF8IsAnError() throws {
        let lua = try LuaState()
        #expect(try conversionError(#"return {s = "\xff"}"#, in: lua).message
            == "cannot convert the value at /s: a string that is not UTF-8")
        #expect(try conversionError(#"return {[ "\xff" ] = 1}"#, in: lua).message
            == "cannot convert the value at /: a key that is not UTF-8")
    }

    @Test func cyclesAreErrors() throws {
        let lua = try LuaState()
        #expect(try conversionError("local t = {} t.a = t return t", in: lua).message
            == "cannot convert a cycle at /a: the table at / contains itself")
        #expect(try conversionError("local t = {x = {}} t.x.y = {t.x} return t", in: lua).message
            == "cannot convert a cycle at /x/y/1: the table at /x contains itself")
        // the same table twice, without a cycle, is fine
        #expect(try evaluate("local s = {1} return {a = s, b = s}", in: lua) == [.json(["a": [1], "b": [1]])])
    }

    @Test func depthIsLimited() throws {
        let lua = try LuaState()
        let error = try conversionError(
            "local t = {} local c = t for i = 1, 600 do c.n = {} c = c.n end return t", in: lua)
        #expect(error.message.hasPrefix("cannot convert the value at /n/n/n/"))
        #expect(error.message.hasSuffix(": nested deeper than 512 levels"))
        // and the other way
        var deep: JSONValue = 1
        for _ in 0..<600 { deep = ["n": deep] }
        let identity = try lua.compileFunction("function(v) return v end", name: "=test")
        let pushError = try #require(throws: LuaError.self) { try lua.call(identity, with: [deep]) }
        #expect(pushError.kind == .conversion)
        #expect(pushError.message.hasPrefix("argument 1: cannot convert the value at /n/n/"))
        // the state is still usable
        #expect(try lua.call(identity, with: [["n": 1]]) == [.json(["n": 1])])
    }

    @Test func multipleResultsNameTheBadOne() throws {
        let lua = try LuaState()
        #expect(try conversionError("return 1, {f = print}", in: lua).message
            == "result 2: cannot convert the value at /f: a function is not JSON")
    }

    @Test func serverValuesAreObjects() throws {
        let lua = try LuaState()
        let read = try lua.compileFunction("function(v) return v['.sv'] end", name: "=test")
        #expect(try lua.call(read, with: [.serverTimestamp]) == [.json("timestamp")])
        #expect(try roundTrip(.increment(5), in: lua) == [.json(.increment(5))])
    }
}
