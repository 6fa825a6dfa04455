import EmberLua
import Testing

/// Running chunks and converting what they return.
@Suite struct LuaStateTests {
    @Test func runReturnsConvertedResults() throws {
        let lua = try LuaState()
        let results = try lua.run(chunk: "return 1, 2.5, 'text', true, nil, {}, print", name: "=test")
        #expect(
            results == [
                .integer(1), .number(2.5), .string("text"), .boolean(true), .nil,
                .other(typeName: "table"), .other(typeName: "function"),
            ])
    }

    @Test func integersAndFloatsStayApart() throws {
        let lua = try LuaState()
        #expect(try lua.run(chunk: "return 4 // 2, 4 / 2, 2^53, math.maxinteger", name: "=test") == [
            .integer(2), .number(2.0), .number(9_007_199_254_740_992), .integer(Int64.max),
        ])
    }

    @Test func stringsKeepEmbeddedZerosAndUnicode() throws {
        let lua = try LuaState()
        #expect(try lua.run(chunk: #"return "a\0b", "héllo ✓""#, name: "=test") == [
            .string("a\0b"), .string("héllo ✓"),
        ])
    }

    @Test func chunkWithoutReturnGivesNoResults() throws {
        let lua = try LuaState()
        #expect(try lua.run(chunk: "local x = 1", name: "=test") == [])
        #expect(try lua.run(chunk: "", name: "=test") == [])
    }

    @Test func globalsPersistBetweenRuns() throws {
        let lua = try LuaState()
        try lua.run(chunk: "counter = 41", name: "=test")
        #expect(try lua.run(chunk: "counter = counter + 1 return counter", name: "=test") == [.integer(42)])
    }

    @Test func syntaxErrorIsReportedWithPosition() throws {
        let lua = try LuaState()
        let error = try #require(throws: LuaError.self) {
            try lua.run(chunk: "x = = 1", name: "=repl")
        }
        #expect(error.kind == .syntax)
        #expect(error.message == "repl:1: unexpected symbol near '='")
        #expect(error.traceback == nil)
    }

    @Test func runtimeErrorCarriesMessageAndTraceback() throws {
        let lua = try LuaState()
        let chunk = """
            local function inner() error("boom") end
            local function outer() inner() end
            outer()
            """
        let error = try #require(throws: LuaError.self) {
            try lua.run(chunk: chunk, name: "@script.lua")
        }
        #expect(error.kind == .runtime)
        #expect(error.message == "script.lua:1: boom")
        let traceback = try #require(error.traceback)
        #expect(traceback.hasPrefix("stack traceback:\n"))
        #expect(traceback.contains("script.lua:1: in upvalue 'inner'"))
        #expect(traceback.contains("script.lua:2: in local 'outer'"))
        #expect(traceback.contains("script.lua:3: in main chunk"))
    }

    @Test func errorObjectsThatAreNotStringsAreDescribed() throws {
        let lua = try LuaState()
        let plain = try #require(throws: LuaError.self) {
            try lua.run(chunk: "error({})", name: "=test")
        }
        #expect(plain.message == "(error object is a table value)")
        let described = try #require(throws: LuaError.self) {
            try lua.run(
                chunk: "error(setmetatable({}, {__tostring = function() return 'custom' end}))", name: "=test")
        }
        #expect(described.message == "custom")
    }

    /// Issue 18, item 9: an error object whose `__tostring` fails was reported as "out of
    /// memory" (in a script) or as an error in the message handler.
    @Test func errorObjectWhoseTostringFailsIsDescribed() throws {
        let lua = try LuaState()
        let failing = try #require(throws: LuaError.self) {
            try lua.run(chunk: "error(setmetatable({}, {__tostring = function() error('boom') end}))", name: "=test")
        }
        #expect(failing.kind == .runtime)
        #expect(failing.message == "(error object is a table value; its __tostring failed: test:1: boom)")
        let notString = try #require(throws: LuaError.self) {
            try lua.run(chunk: "error(setmetatable({}, {__tostring = function() return 5 end}))", name: "=test")
        }
        #expect(notString.message == "(error object is a table value; its __tostring returned a number)")
    }

    @Test func stateStaysUsableAfterAnError() throws {
        let lua = try LuaState()
        #expect(throws: LuaError.self) { try lua.run(chunk: "error('first')", name: "=test") }
        #expect(try lua.run(chunk: "return 'second'", name: "=test") == [.string("second")])
    }
}
