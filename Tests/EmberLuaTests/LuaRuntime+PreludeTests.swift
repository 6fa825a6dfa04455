import EmberClient
import EmberCore
import EmberInstance
import EmberLua
import EmberServer
import EmberWire
import Testing
/// The sandbox: what scripts cannot reach, each escape attempted, the limits proven.
@Suite struct LuaSandboxTests {
    @Test func dangerousFunctionsAreAbsent() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("return os.execute, os.exit, os.remove, os.getenv, io, require, dofile, loadfile, debug, package")
        #expect(results == Array(repeating: .nil, count: 10))
        #expect(try fixture.run("return type(os.time()), type(os.clock()), type(os.date('%Y'))") == [.json("number"), .json("number"), .json("string")])
    }

    @Test func escapeThroughOsExecuteAndIoOpenFails() throws {
        let fixture = try LuaRuntimeFixture()
        for attempt in ["os.execute('touch /tmp/ember-escaped')", "io.open('/etc/passwd')"] {
            let error = try #require(throws: LuaError.self) { try fixture.run(attempt) }
            #expect(error.kind == .runtime)
            #expect(error.message.contains("attempt to call a nil value") || error.message.contains("attempt to index a nil value"))
        }
    }

    @Test func loadWithACraftedEnvironmentGainsNothing() throws {
        let fixture = try LuaRuntimeFixture()
        // a crafted environment only holds what the script already has
        #expect(try fixture.run("return load('return os.execute', 'x', 't', {os = os})()") == [.nil])
        // without one, load compiles into the script's own environment, not the real globals
        #expect(try fixture.run("mine = 7 return load('return mine')(), load('string = nil')() or type(string)") == [.json(7), .json("nil")])
        #expect(try fixture.run("return type(string)") == [.json("table")])
        // binary chunks are refused, whatever mode is asked for
        let results = try fixture.run("return load(string.dump(function() return 1 end), 'b', 'b')")
        #expect(results.first == .nil)
        guard case .json(.string(let message)) = results.last else { Issue.record("no message: \(results)"); return }
        #expect(message.contains("binary"))
    }

    @Test func eachScriptHasAFreshEnvironmentOverAReadOnlyBase() throws {
        let fixture = try LuaRuntimeFixture()
        try fixture.run("string.format = nil; ember.exec = nil; leaked = 1; print = nil")
        #expect(try fixture.run("return type(string.format), type(ember.exec), leaked, type(print)") == [
            .json("function"), .json("function"), .nil, .json("function"),
        ])
        #expect(try fixture.run("return getmetatable(_G), getmetatable(''), _G == _ENV") == [.json(false), .json(false), .json(true)])
        // rawset on a library table changes the script's own copy only
        try fixture.run("rawset(string, 'upper', function() return 'pwned' end)")
        #expect(try fixture.run("return ('x'):upper(), string.upper('y')") == [.json("X"), .json("Y")])
    }

    @Test func memoryBombsStopWithAClearError() throws {
        let fixture = try LuaRuntimeFixture(configuration: LuaConfiguration(memoryLimit: 8 << 20))
        for bomb in ["return #string.rep('x', 1 << 30)", "local t = {} for i = 1, 1e9 do t[i] = i end"] {
            let error = try #require(throws: LuaError.self) { try fixture.run(bomb) }
            #expect(error.kind == .memory)
            #expect(error.message.contains("not enough memory"))
        }
        #expect(try fixture.run("return #string.rep('x', 1000)") == [.json(1000)])
    }

    @Test func endlessLoopsStopAtTheInstructionLimitEvenUnderPcall() throws {
        let fixture = try LuaRuntimeFixture(configuration: LuaConfiguration(instructionLimit: 200_000))
        for loop in ["while true do end", "while true do pcall(function() while true do end end) end"] {
            let error = try #require(throws: LuaError.self) { try fixture.run(loop) }
            #expect(error.kind == .instructionLimit)
            #expect(error.message.contains("instruction limit exceeded (200000 instructions)"))
        }
        // the budget counts instructions between two waits: a script that waits goes on
        #expect(try fixture.run("for round = 1, 3 do for i = 1, 50000 do end ember.sleep(1) end return 'done'") == [.json("done")])
    }

    @Test func unsafeModeGivesIoOsAndRequire() throws {
        let fixture = try LuaRuntimeFixture(configuration: LuaConfiguration(libraries: .all))
        #expect(try fixture.run("return type(io.open), type(os.execute), type(require)") == [
            .json("function"), .json("function"), .json("function"),
        ])
    }
}
