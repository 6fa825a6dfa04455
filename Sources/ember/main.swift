import Foundation

// `ember`: parse the command line, hand off to EmberShell (or to `ember serve`), exit with its
// status.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "serve" {
    exit(EmberCommand.exitStatus(running: Array(arguments.dropFirst()), as: ServeCommand.self))
}
exit(EmberCommand.exitStatus(running: arguments))
