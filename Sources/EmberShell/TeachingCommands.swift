import EmberQL

/// What shows the realtime model at work: the protocol trace, a client's inspection, the
/// viewer in a browser, the tour and the help.
enum TeachingCommands: CommandFamily {
    static let name = "teaching"

    static func action(for command: Command) -> CommandAction? {
        switch command {
        case .trace(let action): { shell throws(ShellError) in try shell.trace(action) }
        case .inspect(let client): { shell throws(ShellError) in try shell.inspect(client) }
        case .view: { shell throws(ShellError) in try shell.view() }
        case .tour(let action): { shell throws(ShellError) in try shell.tour(action) }
        case .help(let topic): { shell throws(ShellError) in try shell.help(topic) }
        default: nil
        }
    }
}
