import EmberCore
import EmberLua
import Testing

/// Lua functions compiled once and called from Swift with JSON.
@Suite struct LuaFunctionReferenceTests {
    @Test func compiledFunctionIsCalledManyTimes() throws {
        let lua = try LuaState()
        let increment = try lua.compileFunction("function(v) return (v or 0) + 1 end", name: "=transaction")
        var value: JSONValue = .null
        for _ in 0..<1000 {
            let results = try lua.call(increment, with: [value])
            value = results.first?.jsonValue ?? .null
        }
        #expect(value == 1000)
    }

    @Test func closuresKeepTheirState() throws {
        let lua = try LuaState()
        let counter = try lua.compileFunction(
            "(function() local n = 0 return function() n = n + 1 return n end end)()", name: "=counter")
        #expect(try lua.call(counter) == [.json(1)])
        #expect(try lua.call(counter) == [.json(2)])
        // an existing function can be named too
        let upper = try lua.compileFunction("string.upper", name: "=upper")
        #expect(try lua.call(upper, with: ["abc"]) == [.json("ABC")])
    }

    @Test func nilAndEmberNullAndValuesAreApart() throws {
        let lua = try LuaState()
        let update = try lua.compileFunction(
            """
            function(current)
              if current == 'abort' then return nil end
              if current == 'delete' then return ember.null end
              if current == 'nothing' then return end
              return {previous = current, kept = true}
            end
            """, name: "=update")
        #expect(try lua.call(update, with: ["abort"]) == [.nil])
        #expect(try lua.call(update, with: ["delete"]) == [.null])
        #expect(try lua.call(update, with: ["nothing"]) == [])
        #expect(try lua.call(update, with: [5]) == [.json(["kept": true, "previous": 5])])
        #expect(LuaResult.null.jsonValue == .null)
        #expect(LuaResult.nil.isNil && LuaResult.nil.jsonValue == .null)
    }

    @Test func severalArgumentsAndResults() throws {
        let lua = try LuaState()
        let swap = try lua.compileFunction("function(a, b, c) return c, b, a end", name: "=swap")
        #expect(try lua.call(swap, with: [1, "two", [3]]) == [.json([3]), .json("two"), .json(1)])
    }

    @Test func syntaxErrorIsClear() throws {
        let lua = try LuaState()
        let error = try #require(throws: LuaError.self) {
            try lua.compileFunction("function(v) return v +", name: "=transaction")
        }
        #expect(error.kind == .syntax)
        #expect(error.message == "transaction:1: unexpected symbol near <eof>")
    }

    @Test func expressionThatIsNotAFunctionIsAnError() throws {
        let lua = try LuaState()
        let error = try #require(throws: LuaError.self) { try lua.compileFunction("42", name: "=transaction") }
        #expect(error.kind == .conversion)
        #expect(error.message == "transaction: the expression gives a number, not a function")
        let missing = try #require(throws: LuaError.self) { try lua.compileFunction("no_such_function", name: "=t") }
        #expect(missing.message == "t: the expression gives a nil, not a function")
        // evaluating the expression can fail at run time
        let failing = try #require(throws: LuaError.self) { try lua.compileFunction("error('nope')", name: "=t") }
        #expect(failing.kind == .runtime)
        #expect(failing.message == "t:1: nope")
    }

    @Test func runtimeErrorCarriesTheTraceback() throws {
        let lua = try LuaState()
        let function = try lua.compileFunction(
            """
            function(v)
              local function inner(x)
                error('bad value ' .. tostring(x))
              end
              inner(v)
            end
            """, name: "=update")
        let error = try #require(throws: LuaError.self) { try lua.call(function, with: [7]) }
        #expect(error.kind == .runtime)
        #expect(error.message == "update:3: bad value 7")
        let traceback = try #require(error.traceback)
        #expect(traceback.hasPrefix("stack traceback:"))
        #expect(traceback.contains("update:3: in"))
        #expect(traceback.contains("update:5: in function"))
        // the state and the function stay usable
        let ok = try lua.compileFunction("function(v) return v end", name: "=ok")
        #expect(try lua.call(ok, with: [1]) == [.json(1)])
        #expect(throws: LuaError.self) { try lua.call(function, with: [8]) }
    }

    @Test func instructionLimitStopsACall() throws {
        let lua = try LuaState(configuration: LuaConfiguration(instructionLimit: 100_000))
        let spin = try lua.compileFunction(
            "function() while true do pcall(function() while true do end end) end end", name: "=spin")
        let error = try #require(throws: LuaError.self) { try lua.call(spin) }
        #expect(error.kind == .instructionLimit)
        // each call has its own budget
        let sum = try lua.compileFunction(
            "function(n) local s = 0 for i = 1, n do s = s + i end return s end", name: "=sum")
        #expect(try lua.call(sum, with: [1000]) == [.json(500_500)])
        #expect(try lua.call(sum, with: [1000]) == [.json(500_500)])
    }

    @Test func interruptStopsACall() throws {
        let lua = try LuaState()
        try lua.register("stop") { [unowned lua] _ in
            lua.requestInterrupt()
            return []
        }
        let function = try lua.compileFunction(
            "function() stop() while true do pcall(function() while true do end end) end end", name: "=f")
        let error = try #require(throws: LuaError.self) { try lua.call(function) }
        #expect(error.kind == .interrupted)
        // the request ended with the call
        let ok = try lua.compileFunction("function() return 'fine' end", name: "=ok")
        #expect(try lua.call(ok) == [.json("fine")])
        // a request made before the call stops it too
        let spin = try lua.compileFunction("function() while true do end end", name: "=spin")
        lua.requestInterrupt()
        #expect(throws: LuaError.self) { try lua.call(spin) }
    }

    @Test func memoryLimitStopsACall() throws {
        let lua = try LuaState(configuration: LuaConfiguration(memoryLimit: 2 << 20))
        let grow = try lua.compileFunction("function() local t = {} for i = 1, 1e7 do t[i] = i end end", name: "=grow")
        let error = try #require(throws: LuaError.self) { try lua.call(grow) }
        #expect(error.kind == .memory)
        let ok = try lua.compileFunction("function(v) return v end", name: "=ok")
        #expect(try lua.call(ok, with: [["a": 1]]) == [.json(["a": 1])])
    }

    @Test func argumentsLargerThanTheMemoryLimit() throws {
        let lua = try LuaState(configuration: LuaConfiguration(memoryLimit: 1 << 20))
        let big = JSONValue.array((0..<100_000).map { .string("item \($0)") })
        let count = try lua.compileFunction("function(v) return #v end", name: "=count")
        // pushing is not limited, but the call fails cleanly once the function needs memory
        let copy = try lua.compileFunction("function(v) local t = {} for i = 1, #v do t[i] = v[i] end end", name: "=c")
        let error = try #require(throws: LuaError.self) { try lua.call(copy, with: [big]) }
        #expect(error.kind == .memory)
        #expect(try lua.call(count, with: [[1, 2]]) == [.json(2)])
    }

    @Test func callFromASwiftFunctionCalledByLua() throws {
        let lua = try LuaState()
        let double = try lua.compileFunction("function(v) return v * 2 end", name: "=double")
        try lua.register("double") { [unowned lua] arguments in
            guard case .integer(let n)? = arguments.first else { return [] }
            guard case .json(.int(let result))? = try lua.call(double, with: [.int(n)]).first else { return [] }
            return [.integer(result)]
        }
        #expect(try lua.run(chunk: "return double(21)", name: "=test") == [.integer(42)])
    }

    @Test func releaseFreesTheReference() throws {
        let lua = try LuaState()
        let function = try lua.compileFunction("function() return 1 end", name: "=f")
        #expect(!function.isReleased)
        function.release()
        #expect(function.isReleased)
        function.release()
        let error = try #require(throws: LuaError.self) { try lua.call(function) }
        #expect(error.kind == .invalidReference)
        #expect(error.message == "the function f was released")
    }

    @Test func referencesAreReusedAfterRelease() throws {
        let lua = try LuaState()
        // many short-lived references do not make the registry grow without bound
        for _ in 0..<100 {
            _ = try lua.compileFunction("function() return {} end", name: "=f")
        }
        let before = lua.memoryUsed
        for _ in 0..<10_000 {
            let function = try lua.compileFunction("function() return 1 end", name: "=f")
            _ = try lua.call(function)
        }
        try lua.run(chunk: "collectgarbage() collectgarbage()", name: "=gc")
        #expect(lua.memoryUsed < before + 64 * 1024)
    }

    @Test func referenceFromAnotherStateIsRefused() throws {
        let one = try LuaState()
        let other = try LuaState()
        let function = try one.compileFunction("function() return 1 end", name: "=f")
        let error = try #require(throws: LuaError.self) { try other.call(function) }
        #expect(error.kind == .invalidReference)
        #expect(error.message == "the function f belongs to another Lua state")
    }

    @Test func referenceOutlivingItsStateIsInert() throws {
        var lua: LuaState? = try LuaState()
        let function = try #require(try lua?.compileFunction("function() return 1 end", name: "=f"))
        lua = nil
        #expect(function.isReleased)
        function.release()
    }
}
