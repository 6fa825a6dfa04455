import EmberQL

/// The live commands: watches and their events, kept-synced locations, onDisconnect.
enum LiveCommands: CommandFamily {
    static let name = "live"

    static func action(for command: Command) -> CommandAction? {
        switch command {
        case .watch(let path, let query, let events): { shell throws(ShellError) in try shell.watch(path, query, events: events) }
        case .unwatch(let target): { shell throws(ShellError) in try shell.unwatch(target) }
        case .watches: { shell in shell.listWatches() }
        case .keepSynced(let path, let on): { shell throws(ShellError) in try shell.keepSynced(path, on) }
        case .onDisconnect(let path, let action): { shell throws(ShellError) in try shell.onDisconnect(path, action) }
        default: nil
        }
    }
}
