import EmberQL

/// What running one command does to a session.
typealias CommandAction = (Shell) throws(ShellError) -> CommandResult

/// One family of the shell's commands (data, live, clients, rules, teaching, scripting,
/// session): it knows which commands are its own and how each runs, so that adding a command
/// touches its family alone (and the parser), never the shell's dispatch.
protocol CommandFamily {
    /// The family's name, as `help` groups commands.
    static var name: String { get }

    /// How `command` runs, or `nil` when it belongs to another family.
    static func action(for command: Command) -> CommandAction?
}

extension Shell {
    /// Every family of commands, in the order they are asked.
    static var commandFamilies: [any CommandFamily.Type] {
        [
            DataCommands.self, LiveCommands.self, ClientCommands.self, RulesCommands.self, TeachingCommands.self,
            ScriptingCommands.self, SessionCommands.self,
        ]
    }

    /// The family that runs `command`, and how.
    static func action(for command: Command) -> (family: any CommandFamily.Type, action: CommandAction)? {
        for family in commandFamilies {
            if let action = family.action(for: command) { return (family, action) }
        }
        return nil
    }
}
