import EmberQL

/// The session's own settings: timing, the pager, the output mode, the history, clearing the
/// screen, and the end.
enum SessionCommands: CommandFamily {
    static let name = "session"

    static func action(for command: Command) -> CommandAction? {
        switch command {
        case .timing(let on): { shell in shell.setTiming(on) }
        case .pager(let on): { shell in shell.setPager(on) }
        case .output(let mode): { shell in shell.setOutput(mode) }
        case .history: { shell in shell.showHistory() }
        case .clear: { shell in .control(shell.style.colored ? "\u{1B}[H\u{1B}[2J" : "") }
        case .exit:
            { shell in
                shell.state.exitRequested = true
                return .nothing
            }
        default: nil
        }
    }
}
