import EmberCore
import EmberLua
import Testing

/// Lua's `print`, redirected to the state's print handler.
@Suite struct PrintHandlerTests {
    @Test func printGoesToTheHandler() throws {
        let lua = try LuaState()
        var lines: [String] = []
        lua.printHandler = { lines.append($0) }
        try lua.run(chunk: "print('hello') print('a', 'b', 'c') print()", name: "=test")
        #expect(lines == ["hello", "a\tb\tc", ""])
    }

    @Test func nonStringArgumentsUseTostring() throws {
        let lua = try LuaState()
        var lines: [String] = []
        lua.printHandler = { lines.append($0) }
        try lua.run(
            chunk: """
                print(1, 2.5, 3.0, true, nil, ember.null)
                print(setmetatable({}, {__tostring = function() return 'custom' end}))
                print(print == print, 2^53)
                """, name: "=test")
        #expect(lines == ["1\t2.5\t3.0\ttrue\tnil\tember.null", "custom", "true\t9.007199254741e+15"])
    }

    @Test func tablesAndFunctionsPrintTheirAddress() throws {
        let lua = try LuaState()
        var lines: [String] = []
        lua.printHandler = { lines.append($0) }
        try lua.run(chunk: "print({}, print)", name: "=test")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("table: 0x") == true)
        #expect(lines.first?.contains("\tfunction: ") == true)
    }

    @Test func aFailingTostringIsALuaError() throws {
        let lua = try LuaState()
        var lines: [String] = []
        lua.printHandler = { lines.append($0) }
        let error = try #require(throws: LuaError.self) {
            try lua.run(chunk: "print(setmetatable({}, {__tostring = function() error('no') end}))", name: "=test")
        }
        #expect(error.kind == .runtime)
        #expect(lines.isEmpty)
    }

    @Test func printInsideACalledFunction() throws {
        let lua = try LuaState()
        var lines: [String] = []
        lua.printHandler = { lines.append($0) }
        let function = try lua.compileFunction("function(v) print('value', v.a) return v end", name: "=f")
        _ = try lua.call(function, with: [["a": 1]])
        #expect(lines == ["value\t1"])
    }

    @Test func handlerCanBeRemoved() throws {
        let lua = try LuaState()
        var lines: [String] = []
        lua.printHandler = { lines.append($0) }
        try lua.run(chunk: "print('kept')", name: "=test")
        lua.printHandler = nil
        try lua.run(chunk: "print('to stdout')", name: "=test")
        #expect(lines == ["kept"])
    }

    @Test func embeddedZerosAndUnicodeSurvive() throws {
        let lua = try LuaState()
        var lines: [String] = []
        lua.printHandler = { lines.append($0) }
        try lua.run(chunk: #"print("a\0b", "héllo ✓")"#, name: "=test")
        #expect(lines == ["a\0b\théllo ✓"])
    }
}
