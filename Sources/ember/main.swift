import EmberShell
import Foundation

// `ember`: parse the command line, hand off to EmberShell (or to `ember serve`, or print the
// shell's help for `ember help [TOPIC]` without opening a database), exit with its status.
// `serve` and `help` are EmberCommand's subcommands only for --help and the completion
// scripts: the root's SCRIPT argument would take them (and what follows) if the parser saw them.
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "serve":
    exit(EmberCommand.exitStatus(running: Array(arguments.dropFirst()), as: ServeCommand.self))
case "help":
    guard arguments.count <= 2 else {
        FileHandle.standardError.write(Data("Error: ember help takes one topic or command at most\nUsage: ember help [<topic>]\n".utf8))
        exit(2)
    }
    exit(ShellSession.printHelp(topic: arguments.dropFirst().first))
default:
    exit(EmberCommand.exitStatus(running: arguments))
}
