import EmberLua
import Testing

/// Swift functions that run Lua code themselves (as `ember.exec` will).
@Suite struct NestedRunTests {
    @Test func swiftFunctionCanRunLuaAgain() throws {
        let lua = try LuaState()
        try lua.register("evaluate") { [unowned lua] arguments in
            guard case .string(let code)? = arguments.first else { return [] }
            return try lua.run(chunk: code, name: "=inner")
        }
        #expect(try lua.run(chunk: "x = 20 return evaluate('return x * 2 + 2')", name: "=outer") == [.integer(42)])
        // an inner error is an error of the call, catchable by the outer code
        #expect(try lua.run(chunk: "return pcall(evaluate, 'error(\"deep\")')", name: "=outer") == [
            .boolean(false), .string("inner:1: deep"),
        ])
    }

    @Test func nestedRunSharesTheBudgetAndStopsTheOuterRun() throws {
        let lua = try LuaState(configuration: LuaConfiguration(instructionLimit: 100_000))
        try lua.register("evaluate") { [unowned lua] arguments in
            guard case .string(let code)? = arguments.first else { return [] }
            return try lua.run(chunk: code, name: "=inner")
        }
        let error = try #require(throws: LuaError.self) {
            try lua.run(chunk: "pcall(evaluate, 'while true do end') while true do end", name: "=outer")
        }
        #expect(error.kind == .instructionLimit)
        // the outer run ended: the next one has a fresh budget
        #expect(try lua.run(chunk: "return evaluate('return 1')", name: "=outer") == [.integer(1)])
    }

    @Test func nestedRunEnforcesTheMemoryLimitAgain() throws {
        let lua = try LuaState(configuration: LuaConfiguration(memoryLimit: 2 << 20))
        try lua.register("evaluate") { [unowned lua] arguments in
            guard case .string(let code)? = arguments.first else { return [] }
            return try lua.run(chunk: code, name: "=inner")
        }
        let results = try lua.run(
            chunk: "return pcall(evaluate, 'local t = {} for i = 1, 1e7 do t[i] = i end')", name: "=outer")
        #expect(results == [.boolean(false), .string("not enough memory")])
    }
}
