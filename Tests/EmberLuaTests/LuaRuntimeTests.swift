import EmberClient
import EmberCore
import EmberInstance
import EmberLua
import EmberServer
import EmberTestSupport
import EmberWire
import Foundation
import Testing
/// Scripts as coroutines: waiting, callbacks between commands and while a script waits, never
/// inside one another; errors with their traceback.
@Suite struct LuaRuntimeTests {
    @Test func writeWaitAndRead() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local ok = db:ref("greeting"):set("hello"):wait()
            return ok, db:ref("greeting"):get():val()
            """)
        #expect(results == [.json(true), .json("hello")])
        #expect(fixture.ember.server.value(at: "/greeting").jsonValue(.normal) == "hello")
    }

    @Test func localEventsFireBeforeTheWriteReturns() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local seen = {}
            db:ref("x"):on("value", function(s) seen[#seen + 1] = tostring(s:val()) end)
            local afterOn = table.concat(seen, ",")
            db:ref("x"):set(1)
            local afterSet = table.concat(seen, ",")
            db:ref("x"):set(2)
            return afterOn, afterSet, table.concat(seen, ",")
            """)
        // nothing is known of /x before the write: its first value event is the write's own
        #expect(results == [.json(""), .json("1"), .json("1,2")])
    }

    @Test func callbacksNeverRunInsideAnotherCallback() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local log = {}
            db:ref("b"):on("value", function(s) if s:exists() then log[#log + 1] = "b " .. s:val() end end)
            db:ref("a"):on("value", function(s)
              if not s:exists() then return end
              log[#log + 1] = "a start"
              db:ref("b"):set(s:val() * 10)      -- b's listener hears of it after this callback
              log[#log + 1] = "a end"
            end)
            db:ref("a"):set(1)
            return table.concat(log, "; ")
            """)
        #expect(results == [.json("a start; a end; b 10")])
    }

    @Test func callbacksCanWaitAndOthersQueueMeanwhile() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local log = {}
            db:ref("other"):set("o"):wait()
            db:ref("n"):on("child_added", function(s)
              log[#log + 1] = "got " .. s.key
              local other = db:ref("other"):get():val()   -- waits inside the callback
              log[#log + 1] = "read " .. other .. " for " .. s.key
            end)
            db:ref("n"):update({a = 1, b = 2}):wait()
            return table.concat(log, "; ")
            """)
        #expect(results == [.json("got a; read o for a; got b; read o for b")])
    }

    @Test func eventsFromAnotherClientArriveWhileTheScriptWaits() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local log = {}
            local bob = ember.client("bob")
            db:ref("chat"):on("child_added", function(s) log[#log + 1] = s:val() end)
            bob:ref("chat"):push("hi")
            bob:ref("chat"):push("there")
            log[#log + 1] = "before sleep"
            ember.sleep(50)
            return table.concat(log, ", ")
            """)
        #expect(results == [.json("before sleep, hi, there")])
    }

    @Test func coroutinesAScriptMakesCanWait() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            db:ref("a"):set(5):wait()
            local read = coroutine.wrap(function(path)
              local value = db:ref(path):get():val()
              coroutine.yield(value)
              return value * 2
            end)
            local co = coroutine.create(function() return db:ref("a"):once("value"):val() + 1 end)
            local ok, value = coroutine.resume(co)
            return read("a"), read(), ok, value
            """)
        #expect(results == [.json(5), .json(10), .json(true), .json(6)])
    }

    @Test func plainYieldAtTheTopOfAScriptGoesOn() throws {
        let fixture = try LuaRuntimeFixture()
        #expect(try fixture.run("coroutine.yield() return 1") == [.json(1)])
    }

    @Test func scriptArgumentsAndTheSessionEnvironment() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("return arg[0], arg[1], ...", in: .script(name: "s.lua", arguments: ["a", "b"]))
        #expect(results == [.json("s.lua"), .json("a"), .json("a"), .json("b")])
        try fixture.run("x = 41", in: .session)
        #expect(try fixture.run("return x + 1", in: .session) == [.json(42)])
        #expect(try fixture.run("return x") == [.nil])
    }

    @Test func runtimeErrorsCarryLocationAndTraceback() throws {
        let fixture = try LuaRuntimeFixture()
        let error = try #require(throws: LuaError.self) {
            try fixture.run("local function f() error('boom') end\nf()")
        }
        #expect(error.kind == .runtime)
        #expect(error.message == "test:1: boom")
        #expect(error.traceback?.contains("in local 'f'") == true)
        #expect(error.traceback?.contains("test:2: in main chunk") == true)
        // and the runtime goes on
        #expect(try fixture.run("return 1") == [.json(1)])
    }

    @Test func errorsInListenersAreReportedAndTheNextCallbackRuns() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local log = {}
            db:ref("x"):on("value", function(s) if s:exists() then error("bad listener") end end)
            db:ref("x"):on("value", function(s) log[#log + 1] = tostring(s:val()) end)
            db:ref("x"):set(3)
            return table.concat(log, ",")
            """)
        #expect(results == [.json("3")])
        #expect(fixture.host.reports.count == 1)
        let report = try #require(fixture.host.reports.first)
        #expect(report.context == "value listener on /x")
        #expect(report.error.message == "test:2: bad listener")
        #expect(report.error.traceback?.contains("stack traceback:") == true)
    }

    @Test func syntaxErrors() throws {
        let fixture = try LuaRuntimeFixture()
        let error = try #require(throws: LuaError.self) { try fixture.run("x = = 1") }
        #expect(error.kind == .syntax)
        #expect(error.message.hasPrefix("test:1:"))
    }

    @Test func interruptStopsAWaitingScript() throws {
        let fixture = try LuaRuntimeFixture()
        let lua = fixture.runtime.lua
        // Ctrl-C arrives 100 ms into a 10-second sleep
        fixture.ember.network.schedule(at: fixture.clock.now() + 100) { lua.requestInterrupt() }
        let error = try #require(throws: LuaError.self) {
            try fixture.run("ember.sleep(10000) return 1")
        }
        #expect(error.kind == .interrupted)
        #expect(fixture.clock.now() < 1_700_000_001_000)
        // the next script runs
        #expect(try fixture.run("return 2") == [.json(2)])
    }

    /// Issue 18, item 9: in a script (a coroutine), such an error was "out of memory".
    @Test func errorObjectWhoseTostringFailsIsDescribed() throws {
        let fixture = try LuaRuntimeFixture()
        let error = try #require(throws: LuaError.self) {
            try fixture.run("error(setmetatable({}, {__tostring = function() error('boom') end}))")
        }
        #expect(error.kind == .runtime)
        #expect(error.message == "(error object is a table value; its __tostring failed: test:1: boom)")
        #expect(try fixture.run("return 'after'") == [.json("after")])
    }

    /// Issue 18, item 8: a `__gc` that called `db` aborted the process at exit ("Attempted to
    /// read an unowned reference"): the state closed, running it, while the runtime was being
    /// destroyed. Now the state's bindings outlive the runtime, detached: they raise.
    @Test func finalizerThatCallsDbAtCloseGetsALuaError() throws {
        let ember = Ember(clock: ManualClock(), random: SeededRandom(seed: 7))
        let printed = LuaFinalizerLimitTests.Lines()
        weak var released: LuaRuntime?
        do {
            let runtime = try LuaRuntime(ember: ember)
            released = runtime
            runtime.lua.printHandler = { printed.lines.append($0) }
            try runtime.run(
                "keep = setmetatable({}, {__gc = function() print(pcall(function() return db:ref('x') end)) end})",
                name: "=test", in: .session)
        }
        #expect(released == nil)
        #expect(printed.lines == ["false\ttest:1: db:ref: the Lua session has ended (its database is closed)"])
    }

    /// A finalizer runs in the middle of other code: it may use `db`, but not wait.
    @Test func finalizersCanWriteButNotWait() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            setmetatable({}, {__gc = function()
              db:ref("collected"):set(true)
              ok, err = pcall(ember.sleep, 10)
            end})
            collectgarbage()
            ember.flush()
            return ok, err, db:ref("collected"):get():val()
            """)
        #expect(results == [
            .json(false),
            .json([
                "code": "cannot_wait",
                "message": "ember.sleep: cannot wait here (inside a transaction function, a metamethod, a sort comparator or a __gc finalizer, nothing may wait)",
            ]),
            .json(true),
        ])
    }
}
