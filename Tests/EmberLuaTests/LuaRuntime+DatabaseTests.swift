import EmberClient
import EmberCore
import EmberInstance
import EmberLua
import EmberServer
import EmberWire
import Testing
/// `db` and the `ember` table: clients, sleep, flush, pushId, exec, command.
@Suite struct LuaRuntimeDatabaseTests {
    @Test func clientsAndTheirOptions() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local carol = ember.client("carol", {offline = true})
            local same = ember.client("carol")
            local ok, v = pcall(function() return carol:ref("x"):get() end)
            return db.name, carol.name, tostring(carol), carol == same, v, db == ember.client("main")
            """)
        #expect(results == [
            .json("main"), .json("carol"), .json("Database(carol)"), .json(true),
            .json([
                "code": "offline", "message": "test:3: ref:get: client carol is offline and has no cached data at /x",
                "path": "/x",
            ]),
            .json(true),
        ])
        #expect(try fixture.ember.client(named: "carol").connectionState == .offline)
        let error = try #require(throws: LuaError.self) { try fixture.run("ember.client('bad name')") }
        #expect(error.message.contains("ember.client"))
    }

    @Test func sleepLetsVirtualTimePassAndFlushWaitsForEverything() throws {
        let fixture = try LuaRuntimeFixture()
        let start = fixture.clock.now()
        try fixture.run("ember.sleep(1500)")
        #expect(fixture.clock.now() - start >= 1500)
        let results = try fixture.run("""
            local bob = ember.client("bob")
            db:ref("f"):set("x")
            ember.flush()
            return bob:ref("f"):get():val(), #ember.pushId(), ember.pushId() < ember.pushId()
            """)
        #expect(results == [.json("x"), .json(20), .json(true)])
        let negative = try #require(throws: LuaError.self) { try fixture.run("ember.sleep(-1)") }
        #expect(negative.message.contains("ember.sleep: argument 1: the time to sleep cannot be negative, got -1"))
    }

    /// Issue 18, item 8: `ember.sleep(math.maxinteger)` overflowed the deadline and trapped.
    @Test func sleepLongerThanADayIsRefusedInsteadOfOverflowing() throws {
        let fixture = try LuaRuntimeFixture()
        let start = fixture.clock.now()
        for (argument, shown) in [("math.maxinteger", "9223372036854775807"), ("1e300", "1e+300"), ("86400001", "86400001")] {
            let error = try #require(throws: LuaError.self) { try fixture.run("ember.sleep(\(argument))") }
            #expect(error.message == "test:1: ember.sleep: argument 1: the time to sleep must be at most 86400000 milliseconds (1 day), got \(shown)")
        }
        let fraction = try #require(throws: LuaError.self) { try fixture.run("ember.sleep(1.5)") }
        #expect(fraction.message == "test:1: ember.sleep: argument 1: expected the time to sleep as an integer number of milliseconds, got 1.5")
        #expect(fixture.clock.now() == start)
        try fixture.run("ember.sleep(86400000.0)")
        #expect(fixture.clock.now() - start >= 86_400_000)
    }

    @Test func execRunsAShellCommand() throws {
        let fixture = try LuaRuntimeFixture()
        #expect(try fixture.run("return ember.exec('get /x').ran") == [.json("get /x")])
        let error = try #require(throws: LuaError.self) { try fixture.run("ember.exec('fail')") }
        #expect(error.message == "test:1: ember.exec: 'fail': unknown command")
    }

    @Test func commandsAddedFromLua() throws {
        let fixture = try LuaRuntimeFixture()
        try fixture.runtime.loadPlugin(
            source: "ember.command{ name = 'seed', args = 'COUNT', help = 'fill /demo', run = function(args, text) return #args, text end }",
            file: "seed.lua")
        let command = try #require(fixture.runtime.commands.first)
        #expect(command.name == "seed" && command.syntax == "COUNT" && command.summary == "fill /demo" && command.origin == "seed.lua")
        #expect(fixture.host.registered.map(\.name) == ["seed"])
        #expect(try fixture.runtime.runCommand(command, arguments: "3 more") == [.json(2), .json("3 more")])
        let taken = try #require(throws: LuaError.self) {
            try fixture.run("ember.command{ name = 'get', run = function() end }")
        }
        #expect(taken.message.contains("'get' is a built-in command"))
        let badName = try #require(throws: LuaError.self) { try fixture.run("ember.command{ name = '1x', run = print }") }
        #expect(badName.message.contains("must be a word"))
        let noRun = try #require(throws: LuaError.self) { try fixture.run("ember.command{ name = 'x' }") }
        #expect(noRun.message.contains("'run' must be a function"))
        #expect(fixture.runtime.removeCommands(addedBy: "seed.lua") == ["seed"])
    }
}
