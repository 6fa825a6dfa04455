import EmberLua
import Testing

/// The instruction limit, the memory limit and interruption, enforced from C.
@Suite struct LuaLimitTests {
    @Test func instructionLimitStopsInfiniteLoop() throws {
        let lua = try LuaState(configuration: LuaConfiguration(instructionLimit: 100_000))
        let error = try #require(throws: LuaError.self) {
            try lua.run(chunk: "while true do end", name: "=loop")
        }
        #expect(error.kind == .instructionLimit)
        #expect(error.message == "loop:1: instruction limit exceeded (100000 instructions)")
        // the next run gets a fresh budget
        #expect(try lua.run(chunk: "local s = 0 for i = 1, 1000 do s = s + i end return s", name: "=test") == [
            .integer(500_500)
        ])
    }

    @Test func pcallCannotSwallowInstructionLimit() throws {
        let lua = try LuaState(configuration: LuaConfiguration(instructionLimit: 50_000))
        let chunk = """
            local caught = 0
            while true do
              pcall(function() while true do end end)
              caught = caught + 1
            end
            """
        let error = try #require(throws: LuaError.self) { try lua.run(chunk: chunk, name: "=loop") }
        #expect(error.kind == .instructionLimit)
    }

    @Test func instructionLimitCanChange() throws {
        let lua = try LuaState()
        #expect(lua.instructionLimit == nil)
        lua.instructionLimit = 10_000
        #expect(lua.instructionLimit == 10_000)
        #expect(throws: LuaError.self) { try lua.run(chunk: "for i = 1, 1e6 do end", name: "=test") }
        lua.instructionLimit = nil
        #expect(try lua.run(chunk: "for i = 1, 1e6 do end return 'done'", name: "=test") == [.string("done")])
    }

    @Test func interruptRequestStopsTheRun() throws {
        let lua = try LuaState()
        lua.requestInterrupt()
        let error = try #require(throws: LuaError.self) {
            try lua.run(chunk: "while true do end", name: "=loop")
        }
        #expect(error.kind == .interrupted)
        #expect(error.message == "loop:1: interrupted")
        // the request ends with the run it stopped
        #expect(try lua.run(chunk: "return 1", name: "=test") == [.integer(1)])
    }

    @Test func interruptFromSwiftFunctionCannotBeCaught() throws {
        let lua = try LuaState()
        try lua.register("stop") { [unowned lua] _ in
            lua.requestInterrupt()
            return []
        }
        let chunk = """
            stop()
            while true do pcall(function() while true do end end) end
            """
        let error = try #require(throws: LuaError.self) { try lua.run(chunk: chunk, name: "=loop") }
        #expect(error.kind == .interrupted)
    }

    @Test func pendingInterruptStopsSwiftFunctionCalls() throws {
        let lua = try LuaState()
        var calls = 0
        try lua.register("work") { _ in
            calls += 1
            return []
        }
        lua.requestInterrupt()
        let error = try #require(throws: LuaError.self) { try lua.run(chunk: "work()", name: "=test") }
        #expect(error.kind == .interrupted)
        #expect(error.message == "test:1: interrupted")
        #expect(calls == 0)
    }

    @Test func memoryLimitStopsAllocation() throws {
        let lua = try LuaState(configuration: LuaConfiguration(memoryLimit: 2 << 20))
        #expect(lua.memoryUsed > 0)
        #expect(lua.memoryUsed < 2 << 20)
        let error = try #require(throws: LuaError.self) {
            try lua.run(chunk: "local t = {} for i = 1, 1e7 do t[i] = i end", name: "=test")
        }
        #expect(error.kind == .memory)
        #expect(error.message == "not enough memory")
        // the garbage is collectable: the state goes on
        #expect(try lua.run(chunk: "collectgarbage() return #string.rep('x', 1000)", name: "=test") == [.integer(1000)])
    }
}
