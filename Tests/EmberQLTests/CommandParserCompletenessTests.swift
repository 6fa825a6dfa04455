import EmberCore
import Testing

@testable import EmberQL

@Suite struct CommandParserCompletenessTests {
    @Test(arguments: [
        "", "pwd", "# only a comment {", "set /a {}", "set /a {a: [1, 2]}", "set /a [1,\n2]",
        "get /users/o'brien", "set /a }", "set /a ]", "set /a {a: 1}}", "set /a abc {",
        "set /a {\n  a: 'x' # '\n}", "set /a 'it''s'", "get /a startAt 'x'",
        "lua print(#t)", "lua t = {1, 2} # length", "lua -- { comment", "lua s = '{'", "lua x = [[ { ]]",
        "lua for i = 1, 3 do print(i) end", "lua end", "lua --[[ { ]] x = 1", "lua s = 'a\nb'",
        "transaction /a function(v) return v end", "as bob lua print(1)",
        "greet o'brien", "greet x # {", "greet {a: 1}", "greet )",
    ])
    func complete(_ source: String) {
        #expect(CommandParser.isComplete(source))
    }

    @Test(arguments: [
        "set /a {", "set /a [1,", "set /a {a: [", "set /a 'abc", "set /a \"a\\\"", "set /a { # }",
        "set /a {\n  name: 'x',", "set /a increment(", "update /a {b: 1,\n", "get /a startAt \"x",
        "push /m {", "as bob set /a {", "ondisconnect /p set [",
        "lua t = {", "lua f(", "lua x = \"abc", "lua s = [[abc", "lua s = [==[ ]] ", "lua --[[ comment",
        "lua for i = 1, 3 do", "lua function f()", "lua if x then", "lua repeat x = x + 1",
        "transaction /a function(v)", "transaction /a function(v)\n  return v + #list", "as bob lua f(",
        "greet {a: 1", "greet 'abc", "greet [",
    ])
    func incomplete(_ source: String) {
        #expect(!CommandParser.isComplete(source))
    }

    @Test func aContinuedEntryParses() throws {
        let lines = ["set /a {", "  name: 'x',", "  tags: [1,", "2],", "}"]
        var entry = ""
        for (index, line) in lines.enumerated() {
            entry += (entry.isEmpty ? "" : "\n") + line
            #expect(CommandParser.isComplete(entry) == (index == lines.count - 1))
        }
        #expect(try parsed(entry) == .set(PathExpression("/a", at: at(5)), ValueExpression(["name": "x", "tags": [1, 2]], at: at(8)), priority: nil))
    }
}
