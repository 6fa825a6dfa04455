import EmberLua
import Testing

/// Telling complete chunks from unfinished ones, for the REPL's multi-line entries.
@Suite struct LuaStateCompletenessTests {
    @Test(arguments: [
        "x = 1", "print('hi')", "1 + 2", "return 1", "", "   ", "local t = {\n  a = 1,\n}",
        "for i = 1, 3 do\n  print(i)\nend", "(42\n)", "-- a comment",
    ])
    func completeChunks(chunk: String) throws {
        #expect(try LuaState().isComplete(chunk))
    }

    @Test(arguments: [
        "1 +", "x = 1 +", "for i = 1, 3 do", "function f()", "local t = {", "if x then\n  print(x)",
        "print('a',", "s = 'unfinished", "s = [[long\nstring", "--[[ open comment", "return 1 +",
        "while true do", "f(", "x = {a = {b = 1}",
    ])
    func incompleteChunks(chunk: String) throws {
        #expect(try !LuaState().isComplete(chunk))
    }

    @Test(arguments: ["x = = 1", "end", "1 2", "local = 3", "return return", "for i in do end", "x = 1 )"])
    func erroneousChunksAreComplete(chunk: String) throws {
        // complete: running them reports the syntax error instead of waiting for more input
        #expect(try LuaState().isComplete(chunk))
    }

    @Test func compilingDoesNotRun() throws {
        let lua = try LuaState()
        #expect(lua.isComplete("ran = true"))
        #expect(try lua.run(chunk: "return ran", name: "=test") == [.nil])
    }
}
