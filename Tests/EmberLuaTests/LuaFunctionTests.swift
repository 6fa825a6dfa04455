import EmberLua
import Testing

/// A Swift error thrown by a registered function, with a message.
private struct TestFailure: Error, CustomStringConvertible {
    let description: String
}

/// Swift functions called from Lua through the C trampoline.
@Suite struct LuaFunctionTests {
    @Test func swiftFunctionReceivesArgumentsAndReturnsResults() throws {
        let lua = try LuaState()
        try lua.register("add") { arguments in
            guard arguments.count == 2, case .integer(let a) = arguments[0], case .integer(let b) = arguments[1] else {
                throw TestFailure(description: "add expects two integers")
            }
            return [.integer(a + b)]
        }
        #expect(try lua.run(chunk: "return add(2, 3)", name: "=test") == [.integer(5)])
    }

    @Test func argumentsAndResultsRoundTrip() throws {
        let lua = try LuaState()
        var seen: [LuaValue] = []
        try lua.register("echo") { arguments in
            seen = arguments
            return arguments
        }
        let results = try lua.run(chunk: "return echo(1, 2.5, 's', false, nil, {})", name: "=test")
        #expect(seen == [.integer(1), .number(2.5), .string("s"), .boolean(false), .nil, .other(typeName: "table")])
        // a table is not converted back: it returns as nil
        #expect(results == [.integer(1), .number(2.5), .string("s"), .boolean(false), .nil, .nil])
    }

    @Test func thrownSwiftErrorIsCaughtByLuaPcall() throws {
        let lua = try LuaState()
        try lua.register("fail") { arguments in
            throw TestFailure(description: "bad thing: \(arguments.first.map { "\($0)" } ?? "none")")
        }
        // called directly by pcall (a C function), the message has no position
        #expect(try lua.run(chunk: "return pcall(fail, 'x')", name: "=test") == [
            .boolean(false), .string(#"bad thing: string("x")"#),
        ])
        // called from Lua code, the message gets the caller's position, as with error()
        #expect(try lua.run(chunk: "return pcall(function() fail() end)", name: "=test") == [
            .boolean(false), .string("test:1: bad thing: none"),
        ])
    }

    @Test func uncaughtSwiftErrorSurfacesAsLuaError() throws {
        let lua = try LuaState()
        try lua.register("fail") { _ in throw TestFailure(description: "permission denied at /users/bob") }
        let error = try #require(throws: LuaError.self) {
            try lua.run(chunk: "local x = 1\nfail()", name: "=script")
        }
        #expect(error.kind == .runtime)
        #expect(error.message == "script:2: permission denied at /users/bob")
        let traceback = try #require(error.traceback)
        #expect(traceback.contains("[C]: in function 'fail'"))
        #expect(traceback.contains("script:2: in main chunk"))
    }

    @Test func swiftFunctionCanBeCalledManyTimes() throws {
        let lua = try LuaState()
        var calls = 0
        try lua.register("tick") { _ in
            calls += 1
            return [.integer(Int64(calls))]
        }
        #expect(try lua.run(chunk: "local n for i = 1, 1000 do n = tick() end return n", name: "=test") == [.integer(1000)])
        #expect(calls == 1000)
    }

    @Test func stateReleasesRegisteredFunctionsWhenClosed() throws {
        final class Token {}
        weak var weakToken: Token?
        do {
            let token = Token()
            weakToken = token
            let lua = try LuaState()
            try lua.register("hold") { _ in
                _ = token
                return []
            }
            try lua.run(chunk: "hold()", name: "=test")
            #expect(weakToken != nil)
        }
        #expect(weakToken == nil)
    }
}
