@testable import EmberLua
import Testing

/// Completing Lua globals, fields and methods for the REPL's Lua mode.
@Suite struct LuaStateCompletionTests {
    @Test func globalsAndKeywords() throws {
        let lua = try LuaState()
        #expect(lua.completions(for: "pri") == ["print("])
        #expect(lua.completions(for: "fun") == ["function"])
        #expect(lua.completions(for: "whi") == ["while"])
        // a table global gets nothing appended; keywords and globals are sorted together
        try lua.run(chunk: "tally = {} ; retries = 3", name: "=test")
        #expect(lua.completions(for: "ta") == ["table", "tally"])
        #expect(lua.completions(for: "re") == ["repeat", "retries", "return"])
        #expect(lua.completions(for: "x = pri") == ["x = print("])
    }

    @Test func libraryFields() throws {
        let lua = try LuaState()
        #expect(lua.completions(for: "string.fo") == ["string.format("])
        #expect(lua.completions(for: "x = string.fo") == ["x = string.format("])
        #expect(lua.completions(for: "math.pi") == ["math.pi"])
        #expect(lua.completions(for: "math.hu") == ["math.huge"])
        // an empty word offers every field
        let fields = lua.completions(for: "string.")
        #expect(fields.contains("string.upper(") && fields.contains("string.len("))
        #expect(fields == fields.sorted() && Set(fields).count == fields.count)
    }

    @Test func methodsThroughAMetatable() throws {
        let lua = try LuaState()
        try lua.run(chunk: #"obj = setmetatable({}, {__index = {go = function() end, name = "x"}})"#, name: "=test")
        #expect(lua.completions(for: "obj:") == ["obj:go("])
        #expect(lua.completions(for: "obj.") == ["obj.go(", "obj.name"])
        #expect(lua.completions(for: "obj:n") == [])
        // a string's methods come from its metatable's __index (the string table)
        try lua.run(chunk: #"s = "text""#, name: "=test")
        #expect(lua.completions(for: "s:upp") == ["s:upper("])
        // an own field shadows the one behind __index, as a lookup would find it
        try lua.run(chunk: "obj.go = 1", name: "=test")
        #expect(lua.completions(for: "obj:") == [])
        #expect(lua.completions(for: "obj.g") == ["obj.go"])
    }

    @Test func nestedPathsFollowIndexTables() throws {
        let lua = try LuaState()
        try lua.run(
            chunk: """
                base = {inner = {deep = {leaf = function() end}}}
                proxy = setmetatable({}, {__index = setmetatable({}, {__index = base})})
                lazy = setmetatable({}, {__index = function() return {} end})
                """, name: "=test")
        #expect(lua.completions(for: "base.inner.deep.l") == ["base.inner.deep.leaf("])
        #expect(lua.completions(for: "proxy.inner.deep:") == ["proxy.inner.deep:leaf("])
        // an __index function is never called
        #expect(lua.completions(for: "lazy.anything.") == [])
        #expect(lua.completions(for: "lazy.") == [])
    }

    @Test func chainedEnvironmentTable() throws {
        let lua = try LuaState()
        try lua.run(
            chunk: """
                shared = {helper = function() end}
                middle = setmetatable({counter = 0}, {__index = _G})
                env = setmetatable({mine = {}}, {__index = setmetatable({helper = shared.helper}, {__index = middle})})
                """, name: "=test")
        let env = try lua.tableReference(ofGlobal: "env")
        #expect(lua.completions(for: "mi", globals: env) == ["middle", "mine"])
        #expect(lua.completions(for: "hel", globals: env) == ["helper("])
        #expect(lua.completions(for: "cou", globals: env) == ["counter"])
        // through middle's __index, the real globals
        #expect(lua.completions(for: "pri", globals: env) == ["print("])
        #expect(lua.completions(for: "string.up", globals: env) == ["string.upper("])
        // the state's globals do not see the environment's own names
        #expect(lua.completions(for: "mi") == ["middle"])
        let globals = try lua.globalsTableReference()
        #expect(lua.completions(for: "mi", globals: globals) == ["middle"])
        // a reference from another state offers nothing
        let other = try LuaState()
        #expect(other.completions(for: "pri", globals: env) == [])
        #expect(throws: LuaError.self) { try lua.tableReference(ofGlobal: "print") }
    }

    @Test func prefixIsKept() throws {
        let lua = try LuaState()
        try lua.run(chunk: "db = {read = function() end, remove = function() end, rest = 1}", name: "=test")
        #expect(lua.completions(for: "print(db:re") == ["print(db:read(", "print(db:remove("])
        #expect(lua.completions(for: "print(db.re") == ["print(db.read(", "print(db.remove(", "print(db.rest"])
        #expect(lua.completions(for: "local n = #db.res") == ["local n = #db.rest"])
        // after a concatenation, a new expression starts
        #expect(lua.completions(for: "x = 'a'..db.res") == ["x = 'a'..db.rest"])
        #expect(lua.completions(for: "x = s..pri") == ["x = s..print("])
    }

    @Test func nothingForUnknownRootsOrOtherExpressions() throws {
        let lua = try LuaState()
        #expect(lua.completions(for: "nosuch.") == [])
        #expect(lua.completions(for: "nosuch.fo") == [])
        #expect(lua.completions(for: "nosuch:fo") == [])
        #expect(lua.completions(for: "string.nosuch.x") == [])
        #expect(lua.completions(for: "zzz") == [])
        #expect(lua.completions(for: "x = 1.5") == [])
        #expect(lua.completions(for: "string:format.x") == [])
        #expect(lua.completions(for: "('s'):up") == [])
        #expect(lua.completions(for: "f(...") == [])
        #expect(lua.completions(for: "::lab") == [])
        // a number value has no fields
        try lua.run(chunk: "n = 5", name: "=test")
        #expect(lua.completions(for: "n.") == [])
    }

    @Test func onlyIdentifierKeysAreOffered() throws {
        let lua = try LuaState()
        try lua.run(
            chunk: #"t = {["with space"] = 1, ["end"] = 2, ["9lives"] = 3, [1] = 4, ok_1 = 5, [true] = 6}"#,
            name: "=test")
        #expect(lua.completions(for: "t.") == ["t.ok_1"])
    }

    @Test func resultsAreCappedAndKeysWalkedAreBounded() throws {
        let lua = try LuaState()
        try lua.run(chunk: "big = {} for i = 1, 5000 do big['k' .. i] = i end", name: "=test")
        let all = lua.completions(for: "big.")
        #expect(all.count == 200)
        #expect(all == all.sorted())
        // a lookup along the path is exact however big the table is
        try lua.run(chunk: "big.k4999 = {inside = 1}", name: "=test")
        #expect(lua.completions(for: "big.k4999.ins") == ["big.k4999.inside"])
    }

    @Test func stackIsUnchangedAndStateStillWorks() throws {
        let lua = try LuaState()
        try lua.run(chunk: #"obj = setmetatable({}, {__index = {go = function() end}})"#, name: "=test")
        for line in ["pri", "string.fo", "obj:", "obj.", "obj.go.x", "nosuch.x", "x = 1.5", "", "a:b.c", "s:up"] {
            _ = lua.completions(for: line)
        }
        let env = try lua.globalsTableReference()
        _ = lua.completions(for: "obj.g", globals: env)
        #expect(try lua.run(chunk: "return 1", name: "=test") == [.integer(1)])
        #expect(try lua.run(chunk: "return select('#', ...)", name: "=test") == [.integer(0)])
    }

    @Test func completionRunsNoLuaCode() throws {
        let lua = try LuaState()
        try lua.run(
            chunk: """
                calls = 0
                trap = setmetatable({}, {__index = function() calls = calls + 1 end,
                                         __pairs = function() calls = calls + 1 end})
                """, name: "=test")
        _ = lua.completions(for: "trap.x.y")
        _ = lua.completions(for: "trap.")
        _ = lua.completions(for: "trap:")
        #expect(try lua.run(chunk: "return calls", name: "=test") == [.integer(0)])
    }
}
