import EmberShell
import Testing

/// The common forms of `ember`'s command line, read without swift-argument-parser; anything
/// else is declined (`nil`), for the full parser to read or report.
@Suite struct ShellArgumentsTests {
    @Test("the common forms give the values the full parser would")
    func commonForms() throws {
        let none = try #require(ShellArguments(commonForm: []))
        #expect(none == { var values = ShellArguments(); values.commandLine = []; return values }())
        #expect(none.durability == "normal" && none.luaInstructions == 1_000_000_000 && none.luaMemory == 512 && none.ackTimeout == 30)

        let line = ["--memory", "-c", "set /a 1", "-e", "print(1)", "--command", "get /a", "-q", "--json", "--no-rc"]
        let values = try #require(ShellArguments(commonForm: line))
        #expect(values.memory && values.quiet && values.json && values.noRC && !values.noColor)
        #expect(values.commands == ["set /a 1", "get /a"])
        #expect(values.luaChunks == ["print(1)"])
        let options = try values.shellOptions(environment: [:])
        #expect(options.inputs == [.command("set /a 1"), .lua("print(1)"), .command("get /a")], "in the order given")

        let stored = try #require(ShellArguments(commonForm: ["--db", "/tmp/d", "--durability", "full", "-f", "x.ember", "--offline", "-i"]))
        #expect(stored.databaseDirectory == "/tmp/d" && stored.durability == "full" && stored.file == "x.ember")
        #expect(stored.offline && stored.interactive)
    }

    @Test("anything else is left to the full parser", arguments: [
        ["script.lua"], ["--help"], ["--version"], ["-h"], ["--db=/tmp/d"], ["--db"], ["-c"], ["-c", "-x"],
        ["--memory", "--memory"], ["--db", "a", "--db", "b"], ["-f", "a", "--file", "b"], ["--durability", "full", "--durability", "off"],
        ["--lua-memory", "5"], ["--ack-timeout", "3"], ["--", "script.lua"], ["-qi"], ["--unknown"], ["-c", "get /", "extra"],
    ])
    func declined(_ line: [String]) {
        #expect(ShellArguments(commonForm: line) == nil)
    }

    @Test("a usage error of the common form is the shell's own (the full parser reports it)")
    func usageErrors() throws {
        let both = try #require(ShellArguments(commonForm: ["--db", "/tmp/d", "--memory"]))
        #expect(throws: ShellUsageError.self) { try both.shellOptions(environment: [:]) }
        let auth = try #require(ShellArguments(commonForm: ["--auth", "token"]))
        #expect(throws: ShellUsageError("--auth goes with --connect (in the embedded shell, sign in with the auth command)")) {
            try auth.shellOptions(environment: [:])
        }
    }
}
