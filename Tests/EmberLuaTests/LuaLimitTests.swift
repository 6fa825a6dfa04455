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

/// Lua runs `__gc` finalizers with every debug hook off; Ember runs a script's finalizer on a
/// coroutine of its own so that the count hook (limits, interrupt) reaches it.
@Suite struct LuaFinalizerLimitTests {
    /// The lines a state printed, kept outside the state (which these tests close).
    final class Lines {
        var lines: [String] = []
    }

    /// Issue 18, item 8: a `__gc` with an endless loop ran forever, beyond the instruction limit.
    @Test func endlessFinalizerStopsAtTheInstructionLimit() throws {
        let lua = try LuaState(configuration: LuaConfiguration(instructionLimit: 100_000))
        let error = try #require(throws: LuaError.self) {
            try lua.run(chunk: "setmetatable({}, {__gc = function() while true do end end}) collectgarbage() return 'went on'", name: "=gc")
        }
        #expect(error.kind == .instructionLimit)
        #expect(error.message.hasSuffix("instruction limit exceeded (100000 instructions)"))
        // the state is usable, with a fresh budget
        #expect(try lua.run(chunk: "return 'after'", name: "=test") == [.string("after")])
    }

    /// Issue 18, item 8: the same finalizer hung the process at exit, when the state closes.
    /// Each finalizer that runs at close has a budget of its own, so one that loops does not
    /// stop the others.
    @Test func endlessFinalizerAtCloseStopsAtTheInstructionLimitAndTheOthersRun() throws {
        let printed = Lines()
        do {
            let lua = try LuaState(configuration: LuaConfiguration(instructionLimit: 100_000))
            lua.printHandler = { printed.lines.append($0) }
            // at close, finalizers run in the reverse order of their objects: the loop first
            try lua.run(
                chunk: """
                    first = setmetatable({}, {__gc = function() print("the other finalizer ran") end})
                    second = setmetatable({}, {__gc = function() while true do end end})
                    """, name: "=gc")
        }
        #expect(printed.lines == ["the other finalizer ran"])
    }

    /// A finalizer shares the run it interrupts: an interrupt stops both.
    @Test func interruptStopsAFinalizerAndTheRunAroundIt() throws {
        let lua = try LuaState()
        try lua.register("interrupt") { [unowned lua] _ in
            lua.requestInterrupt()
            return []
        }
        let error = try #require(throws: LuaError.self) {
            try lua.run(chunk: "setmetatable({}, {__gc = function() interrupt() while true do end end}) collectgarbage() return 'went on'", name: "=gc")
        }
        #expect(error.kind == .interrupted)
    }

    /// `setmetatable` keeps its contract: the table back, its errors, protected metatables.
    @Test func setmetatableStillBehavesAsTheBaseLibrarys() throws {
        let lua = try LuaState()
        #expect(try lua.run(chunk: "local t = {} return setmetatable(t, {__gc = print}) == t, getmetatable(t) ~= nil", name: "=test") == [
            .boolean(true), .boolean(true),
        ])
        let protected = try #require(throws: LuaError.self) {
            try lua.run(chunk: "local t = setmetatable({}, {__metatable = 1}) setmetatable(t, {})", name: "=test")
        }
        #expect(protected.message == "test:1: cannot change a protected metatable")
        let wrong = try #require(throws: LuaError.self) { try lua.run(chunk: "setmetatable({}, 5)", name: "=test") }
        #expect(wrong.message == "test:1: bad argument #2 to 'setmetatable' (nil or table expected, got number)")
    }
}
