import EmberCore
import EmberQL
@testable import EmberShell
import Testing

/// Every command belongs to exactly one family, which runs it: a command no family runs, or two
/// families claim, fails here before a user meets it.
@Suite("CommandFamily")
struct CommandFamilyTests {
    @Test("every built-in command's example is run by exactly one family")
    func everyCommandHasOneFamily() throws {
        var families: [String: String] = [:]
        for description in CommandDescription.builtins {
            let command = try #require(try CommandParser.parse(description.example), "\(description.example)")
            let claiming = Shell.commandFamilies.filter { $0.action(for: command) != nil }.map { $0.name }
            #expect(claiming.count == 1, "\(description.name) is run by \(claiming)")
            families[description.name] = claiming.first
        }
        #expect(families["get"] == "data")
        #expect(families["watch"] == "live")
        #expect(families["offline"] == "clients")
        #expect(families["explain"] == "rules")
        #expect(families["tour"] == "teaching")
        #expect(families["lua"] == "scripting")
        #expect(families["exit"] == "session")
    }

    @Test("a plugin's command is run by the scripting family")
    func pluginCommands() {
        let command = Command.plugin(Word("hello", at: .start), arguments: nil)
        #expect(Shell.action(for: command)?.family.name == "scripting")
    }

    @Test("the session's state belongs to it: tour stop with no tour says so; a tour started stops; cd moves the location")
    func sessionState() throws {
        let (shell, output) = try makeTestShell()
        defer { shell.close() }
        #expect(shell.execute("tour stop"))
        #expect(output.take().contains("no tour in progress"))
        #expect(shell.execute("tour"))
        #expect(shell.state.tour != nil)
        _ = output.take()
        #expect(shell.execute("tour stop"))
        #expect(output.take().contains("tour stopped"))
        #expect(shell.state.tour == nil)
        #expect(shell.execute("cd /dinos"))
        #expect(shell.state.location == "dinos")
        #expect(shell.prompt.hasSuffix(":/dinos> "))
    }
}
