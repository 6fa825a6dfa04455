import Foundation

// `ember`: parse the command line, hand off to EmberShell, exit with its status.
exit(EmberCommand.exitStatus(running: Array(CommandLine.arguments.dropFirst())))
