import EmberQL

/// The data commands: reads, writes, transactions, files, and the location paths start from.
enum DataCommands: CommandFamily {
    static let name = "data"

    static func action(for command: Command) -> CommandAction? {
        switch command {
        case .get(let path, let query): { shell throws(ShellError) in try shell.get(path, query) }
        case .ls(let path, let query): { shell throws(ShellError) in try shell.list(path, query) }
        case .tree(let path, let depth): { shell throws(ShellError) in try shell.tree(path, depth: depth) }
        case .set(let path, let value, let priority): { shell throws(ShellError) in try shell.set(path, value, priority: priority) }
        case .update(let path, let value): { shell throws(ShellError) in try shell.update(path, value) }
        case .push(let path, let value): { shell throws(ShellError) in try shell.push(path, value) }
        case .remove(let path, let confirmed): { shell throws(ShellError) in try shell.remove(path, confirmed: confirmed) }
        case .increment(let path, let amount): { shell throws(ShellError) in try shell.increment(path, by: amount) }
        case .transaction(let path, let function): { shell throws(ShellError) in try shell.transaction(path, function: function) }
        case .priority(let path, let priority): { shell throws(ShellError) in try shell.setPriority(path, priority) }
        case .export(let path, let file): { shell throws(ShellError) in try shell.export(path, to: file) }
        case .import(let path, let file): { shell throws(ShellError) in try shell.importFile(file, to: path) }
        case .cd(let path): { shell throws(ShellError) in try shell.changeLocation(path) }
        case .pwd: { shell in .location(shell.state.location, shown: true) }
        default: nil
        }
    }
}
