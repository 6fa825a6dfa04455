import EmberClient
import EmberCore
import EmberInstance
import EmberLua
import EmberServer
import EmberWire
import Testing
/// Transactions with Lua update functions.
@Suite struct LuaRuntimeTransactionsTests {
    @Test func waitingFormCommitsAbortsAndDeletes() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local r = db:ref("counter")
            local committed, snap = r:transaction(function(current) return (current or 0) + 1 end)
            -- a location nobody listens to: the first attempt may see nil, the server's value follows
            local again = select(2, r:transaction(function(current) return (current or 0) + 1 end)):val()
            -- nothing listens to /counter: the first attempt sees nil and aborts at once, as in the SDKs
            local aborted, kept = r:transaction(function(current) return nil end)
            local deleted, gone = r:transaction(function(current) return ember.null end)
            return committed, snap:val(), again, aborted, kept:val(), deleted, gone:exists()
            """)
        #expect(results == [.json(true), .json(1), .json(2), .json(false), .nil, .json(true), .json(false)])
    }

    @Test func concurrentTransactionsFromTwoClientsLoseNothing() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local bob = ember.client("bob")
            local done = 0
            for i = 1, 10 do
              db:ref("likes"):transaction(function(n) return (n or 0) + 1 end, function(err, committed) if committed then done = done + 1 end end)
              bob:ref("likes"):transaction(function(n) return (n or 0) + 1 end, function(err, committed) if committed then done = done + 1 end end)
            end
            ember.flush()
            return done, db:ref("likes"):get():val()
            """)
        #expect(results == [.json(20), .json(20)])
    }

    @Test func anErrorInTheUpdateFunctionAbortsOnlyTheTransaction() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local r = db:ref("t")
            r:set(1):wait()
            local ok, err = pcall(function()
              return r:transaction(function(current) error("update failed") end)
            end)
            local got
            r:transaction(function() error("again") end, function(e, committed) got = {e, committed} end)
            ember.flush()
            local waited = pcall(function() r:transaction(function() return db:ref("x"):get() end) end)
            return ok, tostring(err), tostring(got[1]), got[2], r:get():val(), waited
            """)
        #expect(results.count == 6)
        #expect(results[0] == .json(false))
        guard case .json(.string(let message)) = results[1], case .json(.string(let completion)) = results[2] else {
            Issue.record("unexpected \(results)")
            return
        }
        #expect(message.contains("the update function of the transaction at /t failed: test:4: update failed"))
        #expect(message.contains("stack traceback:"))
        #expect(completion.contains("test:7: again"))
        #expect(results[3] == .json(false))
        #expect(results[4] == .json(1))
        #expect(results[5] == .json(false))
    }

    @Test func applyLocallyFalseHidesTheIntermediateValue() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local seen = {}
            db:ref("n"):on("value", function(s) seen[#seen + 1] = tostring(s:val()) end)
            db:ref("n"):transaction(function(c) return 5 end, nil, {applyLocally = false})
            return table.concat(seen, ",")
            """)
        #expect(results == [.json("nil,5")])
    }
}
