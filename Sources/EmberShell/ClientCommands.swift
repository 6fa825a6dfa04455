import EmberQL

/// The clients and their connection: which client commands run as, going offline and online,
/// dropping a connection, the status, and the simulated network and server clock.
enum ClientCommands: CommandFamily {
    static let name = "clients"

    static func action(for command: Command) -> CommandAction? {
        switch command {
        case .offline: { shell in shell.goOffline() }
        case .online: { shell in shell.goOnline() }
        case .drop: { shell in shell.drop() }
        case .status: { shell in shell.status() }
        case .client(let name, let auth): { shell throws(ShellError) in try shell.switchClient(name, auth: auth) }
        case .clients: { shell in shell.listClients() }
        case .as(let name, let inner): { shell throws(ShellError) in try shell.runAs(name, inner) }
        case .serverClockSkew(let milliseconds): { shell throws(ShellError) in try shell.setClockSkew(milliseconds) }
        case .serverLatency(let milliseconds): { shell throws(ShellError) in try shell.setLatency(milliseconds) }
        case .serverTimeout(let milliseconds): { shell throws(ShellError) in try shell.setDisconnectTimeout(milliseconds) }
        case .sleep(let milliseconds):
            { shell throws(ShellError) in
                try shell.sleep(milliseconds)
                return .nothing
            }
        default: nil
        }
    }
}
