import EmberShell
import Foundation

// `ember`: parse the command line, hand off to EmberShell (or to `ember serve`, or print the
// shell's help for `ember help [TOPIC]` without opening a database), exit with its status.
// `serve` is EmberCommand's subcommand only for --help and the completion scripts (which then
// offer ArgumentParser's own `help` too): the root's SCRIPT argument would take `serve` or
// `help` (and what follows) if the parser saw them. `ember help serve` is `ember serve --help`.
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "serve":
    exit(EmberCommand.exitStatus(running: Array(arguments.dropFirst()), as: ServeCommand.self))
case "help":
    guard arguments.count <= 2 else {
        FileHandle.standardError.write(Data("Error: ember help takes one topic or command at most\nUsage: ember help [<topic>]\n".utf8))
        exit(2)
    }
    if arguments.dropFirst().first == "serve" {
        exit(EmberCommand.exitStatus(running: ["--help"], as: ServeCommand.self))
    }
    exit(ShellSession.printHelp(topic: arguments.dropFirst().first))
default:
    // The common forms without swift-argument-parser (its reflection was 42% of a one-command
    // run's start-up); anything else, and any usage error, through it (ShellArguments).
    if let common = ShellArguments(commonForm: arguments),
        let options = try? common.shellOptions(environment: ProcessInfo.processInfo.environment)
    {
        exit(ShellSession.run(options: options))
    }
    exit(EmberCommand.exitStatus(running: arguments))
}
