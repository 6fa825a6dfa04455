import ArgumentParser
import EmberShell

/// `ember help [TOPIC]`: the shell's help (as `help` at the prompt), without opening a
/// database. `main.swift` runs it (``ShellSession/printHelp(topic:environment:)``); this type
/// describes it to `ember --help` and to the completion scripts.
struct HelpTopicCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "help",
        abstract: "Print the shell's help (the commands, or one command or topic) without opening a database.",
        usage: "ember help [<topic>]"
    )

    @Argument(help: "A command or topic (query, values, lua).", completion: .list(Shell.helpWords))
    var topic: String?

    func run() throws {
        let status = ShellSession.printHelp(topic: topic)
        if status != 0 { throw ExitCode(status) }
    }
}
