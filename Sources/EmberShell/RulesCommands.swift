import EmberQL

/// Security: who a client is (`auth`), the rules in force, and why the last request was allowed
/// or refused.
enum RulesCommands: CommandFamily {
    static let name = "rules"

    static func action(for command: Command) -> CommandAction? {
        switch command {
        case .auth(let action): { shell throws(ShellError) in try shell.authenticate(action) }
        case .rules(let action): { shell throws(ShellError) in try shell.rules(action) }
        case .explain: { shell throws(ShellError) in try shell.explain() }
        default: nil
        }
    }
}
