import EmberClient
import EmberCore
import EmberInstance
import EmberLua
import EmberServer
import EmberWire
import Testing
/// Writes from Lua: handles, completion callbacks, push, priorities, offline, onDisconnect.
@Suite struct LuaRuntimeWritesTests {
    @Test func handlesAndCompletionCallbacks() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local log = {}
            local r = db:ref("w")
            r:on("value", function() end)       -- setPriority needs the value the client knows
            local h = r:set(1, function(err) log[#log + 1] = "set done " .. tostring(err) end)
            local before = h.done
            log[#log + 1] = "waiting"
            local ok = h:wait()
            local p, ph = r:parent():child("list"):push({n = 1}, function(err) log[#log + 1] = "pushed" end)
            ph:wait()
            r:setWithPriority("v", 10):wait()
            local priority = r:get():getPriority()
            r:setPriority("high"):wait()
            return before, ok, h.done, table.concat(log, "; "), #p.key, priority, r:get():getPriority(),
              db:ref("list"):child(p.key):get():val().n, r:get():exportVal()[".priority"]
            """)
        #expect(results == [
            .json(false), .json(true), .json(true), .json("waiting; set done nil; pushed"), .json(20), .json(10), .json("high"),
            .json(1), .json("high"),
        ])
    }

    @Test func pushWithoutValueWritesNothing() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("local r = db:ref('p'):push() ember.flush() return #r.key, r:get():exists()")
        #expect(results == [.json(20), .json(false)])
    }

    @Test func offlineWritesQueueAndWaitsTimeOutOrFail() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            db:goOffline()
            local h = db:ref("q"):set("queued")
            local ok1, err1 = h:wait(200)
            local ok2, err2 = h:wait()
            local local_value = db:ref("q"):get():val()
            db:goOnline()
            local ok3 = h:wait()
            return ok1, err1, ok2, err2, local_value, ok3
            """)
        #expect(results == [
            .nil, .json(["code": "timeout", "message": "timeout: the set at /q was not answered within 200 ms (it stays queued)"]),
            .nil,
            .json(["code": "would_wait_forever", "message": "nothing left to happen can finish this wait (is the client offline?)"]),
            .json("queued"), .json(true),
        ])
        #expect(fixture.ember.server.value(at: "/q").jsonValue(.normal) == "queued")
    }

    /// Issue 18, item 8: `h:wait(math.maxinteger)` overflowed the deadline and trapped.
    @Test func waitTimeoutLongerThanADayIsRefusedInsteadOfOverflowing() throws {
        let fixture = try LuaRuntimeFixture()
        for (argument, shown) in [("math.maxinteger", "9223372036854775807"), ("2^63", "9.223372036854776e+18"), ("86400001", "86400001")] {
            let error = try #require(throws: LuaError.self) {
                try fixture.run("db:goOffline() local h = db:ref('q'):set(1) h:wait(\(argument))")
            }
            #expect(error.message == "test:1: handle:wait: argument 1: the timeout must be at most 86400000 milliseconds (1 day), got \(shown) (leave it out to wait without a limit)")
        }
        let results = try fixture.run("db:goOffline() local h = db:ref('q'):set(2) return h:wait(86400000)")
        #expect(results == [
            .nil, .json(["code": "timeout", "message": "timeout: the set at /q was not answered within 86400000 ms (it stays queued)"]),
        ])
    }

    /// Issue 18, item 9: `h:wait(-5)` was accepted as "no time at all".
    @Test func negativeWaitTimeoutIsRefused() throws {
        let fixture = try LuaRuntimeFixture()
        let error = try #require(throws: LuaError.self) {
            try fixture.run("db:goOffline() local h = db:ref('q'):set(1) h:wait(-5)")
        }
        #expect(error.message == "test:1: handle:wait: argument 1: the timeout cannot be negative, got -5 (leave it out to wait without a limit)")
        #expect(try fixture.run("db:goOffline() local h = db:ref('q'):set(1) return h:wait(0)")
            == [.nil, .json(["code": "timeout", "message": "timeout: the set at /q was not answered within 0 ms (it stays queued)"])])
    }

    @Test func refusedWritesReportTheirError() throws {
        let fixture = try LuaRuntimeFixture()
        let error = try #require(throws: LuaError.self) { try fixture.run("db:ref('a'):update({1, 2})") }
        #expect(error.message.contains("ref:update: argument 1: expected a table of paths and values, got a sequence"))
        let bad = try #require(throws: LuaError.self) { try fixture.run("db:ref('a'):set(1, 'p', 'not a function')") }
        #expect(bad.message.contains("ref:set: argument 3: expected a completion function, got string"))
    }

    @Test func onDisconnectRunsWhenTheClientLeaves() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local bob = ember.client("bob")
            local seen = {}
            db:ref("status/bob"):on("value", function(s) seen[#seen + 1] = tostring(s:child("online"):val()) end)
            bob:ref("status/bob"):set({online = true}):wait()
            bob:ref("status/bob"):onDisconnect():set({online = false, at = ember.ServerValue.TIMESTAMP}):wait()
            bob:ref("status/bob/cancelled"):onDisconnect():set(true):wait()
            bob:ref("status/bob/cancelled"):onDisconnect():cancel():wait()
            bob:goOffline()
            ember.flush()
            local v = db:ref("status/bob"):get():val()
            return table.concat(seen, ","), v.online, math.type(v.at), v.cancelled
            """)
        #expect(results == [.json("nil,true,false"), .json(false), .json("integer"), .nil])
    }
}
