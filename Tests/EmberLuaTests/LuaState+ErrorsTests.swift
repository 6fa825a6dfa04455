import EmberClient
import EmberCore
import EmberRules
import EmberInstance
import EmberLua
import EmberServer
import Testing

/// Error objects (issue 19, item 10): every error Ember gives a script has `err.code` and
/// `err.message`, and still reads as the text it was when errors were strings.
@Suite struct LuaErrorObjectTests {
    @Test func bindingErrorsAreObjectsWithACodeAndTheSameText() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local ok, e = pcall(function() db:ref("bad.key") end)
            return ok, e.code, e.message, tostring(e), type(e), getmetatable(e), e.path
            """)
        let message = #"test:1: db:ref: invalid path "bad.key": segment "bad.key": a key must not contain ".""#
        #expect(results.count == 7)
        #expect(results.prefix(6) == [.json(false), .json("invalid_path"), .json(.string(message)), .json(.string(message)), .json("userdata"), .json("ember.error")])
        #expect(results.last == .nil)
    }

    @Test func errorObjectsStillWorkAsStrings() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local _, e = pcall(function() db:ref("bad.key") end)
            print(e)
            return "failed: " .. e, e .. "!", e:find("invalid path", 1, true) ~= nil, (e:gsub("^.-db:ref: ", "")):sub(1, 12),
              e:upper():sub(1, 4), e.nosuch
            """)
        let message = #"test:1: db:ref: invalid path "bad.key": segment "bad.key": a key must not contain ".""#
        #expect(fixture.printed == [message])
        #expect(results == [
            .json(.string("failed: " + message)), .json(.string(message + "!")), .json(true), .json("invalid path"), .json("TEST"),
            .nil,
        ])
    }

    @Test func argumentAndValueErrorsHaveTheirCodes() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local function code(f) local ok, e = pcall(f) return ok and "ok" or e.code end
            local r = db:ref("x")
            return code(function() db:ref(5) end),
              code(function() r:set(function() end) end),
              code(function() r:set({["a.b"] = 1}) end),
              code(function() r:orderByKey():orderByValue() end),
              code(function() r:setPriority(true) end),
              code(function() ember.sleep(-1) end),
              code(function() r:on("nonsense", print) end),
              code(function() ember.client("bad name") end),
              code(function() table.sort({1, 2}, function(a, b) ember.sleep(1) return a < b end) end)
            """)
        #expect(results == [
            .json("invalid_argument"), .json("invalid_value"), .json("invalid_key"), .json("invalid_query"),
            .json("invalid_argument"), .json("invalid_argument"), .json("invalid_argument"), .json("invalid_client_name"),
            .json("cannot_wait"),
        ])
    }

    @Test func aCoroutineResumedWhereNothingMayWaitRaisesCannotWait() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local co = coroutine.create(function() ember.sleep(1) end)
            local ok, e = pcall(table.sort, {1, 2}, function(a, b) coroutine.resume(co) return a < b end)
            return ok, e.code, tostring(e)
            """)
        #expect(results == [.json(false), .json("cannot_wait"), .json("cannot wait here: this coroutine is resumed from code that cannot wait")])
    }

    @Test func errorsAScriptRaisesItselfStayAsTheyAre() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local _, s = pcall(error, "plain")
            local _, t = pcall(error, {mine = true})
            return type(s), s, type(t), t.mine
            """)
        #expect(results == [.json("string"), .json("plain"), .json("table"), .json(true)])
        let uncaught = try #require(throws: LuaError.self) { try fixture.run("error('boom')") }
        #expect(uncaught.code == "lua_error")
        #expect(uncaught.message == "test:1: boom")
    }

    @Test func anUncaughtBindingErrorKeepsItsCodeAndText() throws {
        let fixture = try LuaRuntimeFixture()
        let error = try #require(throws: LuaError.self) { try fixture.run("local x = 1\ndb:ref('bad.key')") }
        #expect(error.kind == .runtime)
        #expect(error.code == "invalid_path")
        #expect(error.message == #"test:2: db:ref: invalid path "bad.key": segment "bad.key": a key must not contain ".""#)
        #expect(error.traceback?.contains("in main chunk") == true)
    }

    @Test func writeCallbacksAndWaitsGetErrorObjects() throws {
        let fixture = try LuaRuntimeFixture()
        try fixture.ember.server.setRules(Ruleset(text: #"{"rules": {".read": true, "$other": {".write": true}, "locked": {".write": false}}}"#))
        let results = try fixture.run("""
            local got = "not called"
            local h = db:ref("locked/x"):set(1, function(err) got = err end)
            local ok, err = h:wait()
            ember.flush()
            local fine
            db:ref("open"):set(1, function(err) fine = err == nil end):wait()
            ember.flush()
            return ok, err.code, err.message, err.path, got.code, tostring(got), fine
            """)
        #expect(results == [
            .nil, .json("permission_denied"), .json("permission denied at /locked/x"), .json("/locked/x"),
            .json("permission_denied"), .json("permission denied at /locked/x"), .json(true),
        ])
    }

    @Test func aTransactionOverriddenByASetCompletesWithOverriddenBySet() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local carol = ember.client("carol", {offline = true})
            local r = carol:ref("t5")
            local got, committed
            r:transaction(function(v) return (v or 0) + 1 end, function(err, c) got, committed = err, c end)
            r:set(10)
            ember.sleep(0)
            return got.code, got.message, got.path, tostring(got), committed
            """)
        #expect(results == [
            .json("overridden_by_set"), .json("the transaction was overridden by a later set at /t5"), .json("/t5"),
            .json("the transaction was overridden by a later set at /t5"), .json(false),
        ])
    }

    @Test func aTransactionRefusedByTheServerCompletesAndRaisesWithItsCode() throws {
        let fixture = try LuaRuntimeFixture()
        try fixture.ember.server.setRules(Ruleset(text: #"{"rules": {".read": true, "$other": {".write": true}, "locked": {".write": false}}}"#))
        let results = try fixture.run("""
            local got
            db:ref("locked/n"):transaction(function(v) return 1 end, function(err) got = err end)
            ember.flush()
            local ok, raised = pcall(function() return db:ref("locked/m"):transaction(function(v) return 1 end) end)
            return got.code, ok, raised.code, tostring(raised)
            """)
        #expect(results == [
            .json("permission_denied"), .json(false), .json("permission_denied"),
            .json("test:4: ref:transaction: permission denied at /locked/m"),
        ])
    }

    @Test func anUpdateFunctionThatRaisesCompletesWithLuaError() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local got
            db:ref("t"):transaction(function() error("boom") end, function(err) got = err end)
            ember.flush()
            local bad
            db:ref("t"):transaction(function() return {["a.b"] = 1} end, function(err) bad = err end)
            ember.flush()
            return got.code, got.message:match("^the update function of the transaction at /t failed: test:2: boom") ~= nil,
              bad.code
            """)
        #expect(results == [.json("lua_error"), .json(true), .json("invalid_key")])
    }

    @Test func execAndCommandErrorsCarryTheHostsCode() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local _, e = pcall(ember.exec, "fail")
            local _, c = pcall(ember.command, {name = "get", run = print})
            local _, n = pcall(ember.command, {run = print})
            return e.code, tostring(e), c.code, n.code
            """)
        #expect(results == [.json("unknown_command"), .json("ember.exec: 'fail': unknown command"), .json("reserved_name"), .json("invalid_argument")])
    }

    @Test func errorObjectsCannotBeChanged() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local _, e = pcall(function() db:ref("bad.key") end)
            local changed = pcall(function() e.code = "mine" end)
            local reset = pcall(setmetatable, e, {})
            return changed, reset, e.code
            """)
        #expect(results == [.json(false), .json(false), .json("invalid_path")])
    }
}
