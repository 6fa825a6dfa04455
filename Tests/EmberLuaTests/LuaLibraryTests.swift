import EmberLua
import Testing

/// Which standard libraries scripts get.
@Suite struct LuaLibraryTests {
    @Test func safeLibrariesOmitFileAndProcessAccess() throws {
        let lua = try LuaState()
        let results = try lua.run(
            chunk: "return io, dofile, loadfile, require, debug, package, os.execute, os.getenv",
            name: "=test")
        #expect(results == Array(repeating: .nil, count: 8))
    }

    @Test func safeLibrariesKeepTheUsefulParts() throws {
        let lua = try LuaState()
        let results = try lua.run(
            chunk: """
                return type(os.time()), type(os.clock()), os.date('!%Y', 0),
                  string.format('%05.1f', 3.14159), table.concat({1, 2, 3}, ','),
                  math.type(1), utf8.char(10003), coroutine.wrap(function() coroutine.yield(7) end)()
                """,
            name: "=test")
        #expect(results == [
            .string("number"), .string("number"), .string("1970"), .string("003.1"), .string("1,2,3"),
            .string("integer"), .string("✓"), .integer(7),
        ])
    }

    @Test func loadAcceptsTextAndRefusesBinaryChunks() throws {
        let lua = try LuaState()
        #expect(try lua.run(chunk: "return load('return 6 * 7')()", name: "=test") == [.integer(42)])
        #expect(try lua.run(chunk: "local env = {x = 5} return load('return x', 'c', 't', env)()", name: "=test") == [
            .integer(5)
        ])
        #expect(try lua.run(chunk: "return load(string.dump(function() end))", name: "=test") == [
            .nil, .string("attempt to load a binary chunk (mode is 't')"),
        ])
    }

    @Test func unsafeConfigurationOpensEverything() throws {
        let lua = try LuaState(configuration: LuaConfiguration(libraries: .all))
        #expect(try lua.run(chunk: "return type(io), type(os.execute), type(require), type(debug)", name: "=test") == [
            .string("table"), .string("function"), .string("function"), .string("table"),
        ])
    }
}
