import EmberClient
import EmberCore
import EmberInstance
import EmberLua
import EmberServer
import EmberWire
import Testing
/// Values between Lua and the database, through the bindings (LUA.md "Values").
@Suite struct LuaRuntimeConversionTests {
    @Test func integersStayIntegersAndArraysAreSequences() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local r = db:ref("v")
            r:set({n = 5, f = 2.5, big = 2^53, list = {"a", "b", "c"}, mixed = {1, x = 2}}):wait()
            local v = r:get():val()
            return math.type(v.n), math.type(v.f), math.type(v.big), #v.list, v.list[3], v.mixed["1"], v.mixed.x
            """)
        // the database keeps numbers, not Lua's subtypes: an integral float comes back an integer
        #expect(results == [.json("integer"), .json("float"), .json("integer"), .json(3), .json("c"), .json(1), .json(2)])
        #expect(fixture.ember.server.value(at: "/v/mixed").jsonValue(.normal) == .object([("1", 1), ("x", 2)]))
    }

    /// Issue 18, item 9: `{10, nil, 30}` was stored at "1" and "3" (reading back as
    /// `[null,10,null,30]`) while `{10, 20, 30}` went to 0, 1, 2.
    @Test func sequenceWithAHoleIsStoredAtTheIndexesOfOneWithout() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            db:ref("full"):set({10, 20, 30}):wait()
            db:ref("holes"):set({10, nil, 30}):wait()
            db:ref("sparse"):set({[1] = "a", [7] = "g"}):wait()
            local v = db:ref("holes"):get():val()
            return #v, v[1], v[2] == ember.null, v[3]
            """)
        #expect(results == [.json(3), .json(10), .json(true), .json(30)])
        #expect(fixture.ember.server.value(at: "/full").jsonString(.export) == #"{"0":10,"1":20,"2":30}"#)
        #expect(fixture.ember.server.value(at: "/holes").jsonString(.export) == #"{"0":10,"2":30}"#)
        #expect(fixture.ember.server.value(at: "/holes").jsonString() == "[10,null,30]")
        #expect(fixture.ember.server.value(at: "/sparse").jsonString(.export) == #"{"0":"a","6":"g"}"#)
    }

    @Test func badValuesAreRefusedWithThePathAndNothingIsWritten() throws {
        let fixture = try LuaRuntimeFixture()
        let cases: [(String, String)] = [
            ("local t = {} t.self = t db:ref('c'):set({a = t})", "cycle"),
            ("db:ref('c'):set({a = {b = print}})", "/a/b: a function is not JSON"),
            ("db:ref('c'):set(0/0)", "is not a JSON number"),
            ("db:ref('c'):set({[true] = 1})", "key"),
            ("db:ref('c'):set({a = db})", "Database userdata is not JSON"),
            ("db:ref('c'):update({ok = 1, bad = coroutine.create(print)})", "/bad: a thread is not JSON"),
            ("db:ref('c'):set({['a.b'] = 1})", "a.b"),
        ]
        for (script, expected) in cases {
            let error = try #require(throws: LuaError.self) { try fixture.run(script) }
            #expect(error.kind == .runtime)
            #expect(error.message.contains(expected), "\(script): \(error.message)")
        }
        try fixture.ember.flush()
        #expect(fixture.ember.server.value(at: "/c").isEmpty)
    }

    /// Lua strings are bytes: what reaches the database must be UTF-8 (ASCII is taken as it is,
    /// anything else checked).
    @Test func stringsMustBeUTF8AsKeysPathsAndValues() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            db:ref("s"):child("caf\u{E9}"):set("na\u{EF}ve"):wait()
            db:ref("s"):child("k1"):set("plain"):wait()
            return db:ref("s/caf\u{E9}"):get():val(), db:ref("s"):child("k1"):get():val()
            """)
        #expect(results == [.json("na\u{EF}ve"), .json("plain")])
        for script in [#"db:ref("s"):child("caf\xE9")"#, #"db:ref("s\xFF")"#, #"db:ref("s"):set("\xC3\x28")"#] {
            let error = try #require(throws: LuaError.self) { try fixture.run(script) }
            #expect(error.message.contains("UTF-8"), "\(script): \(error.message)")
        }
        try fixture.ember.flush()
        #expect(fixture.ember.server.value(at: "/s").jsonString(.export) == #"{"café":"naïve","k1":"plain"}"#)
    }

    @Test func nullInsideUpdateDeletes() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local r = db:ref("u")
            r:set({a = 1, b = 2}):wait()
            r:update({a = ember.null, ["c/d"] = 3}):wait()
            local v = r:get():val()
            return v.a, v.b, v.c.d, tostring(ember.null)
            """)
        #expect(results == [.nil, .json(2), .json(3), .json("ember.null")])
    }

    @Test func serverValuesAreResolvedByTheServer() throws {
        let fixture = try LuaRuntimeFixture()
        let now = fixture.clock.now()
        let results = try fixture.run("""
            local r = db:ref("s")
            r:set({at = ember.ServerValue.TIMESTAMP, n = 10}):wait()
            r:child("n"):set(ember.ServerValue.increment(5)):wait()
            local v = r:get():val()
            return v.at, math.type(v.at), v.n, tostring(ember.ServerValue.TIMESTAMP), tostring(ember.ServerValue.increment(2))
            """)
        #expect(results == [
            .json(.int(now)), .json("integer"), .json(15), .json("ember.ServerValue.TIMESTAMP"),
            .json("ember.ServerValue.increment(2)"),
        ])
    }
}
