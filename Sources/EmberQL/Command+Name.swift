/// The name a command is typed with.
extension Command {
    /// The command's name as ``CommandDescription/builtins`` lists it (`remove` for `rm` too,
    /// `server` for both server settings, `exit` for `quit`); a plugin's command, its word.
    public var name: String {
        switch self {
        case .get: "get"
        case .ls: "ls"
        case .tree: "tree"
        case .set: "set"
        case .update: "update"
        case .push: "push"
        case .remove: "remove"
        case .increment: "increment"
        case .transaction: "transaction"
        case .priority: "priority"
        case .export: "export"
        case .import: "import"
        case .watch: "watch"
        case .unwatch: "unwatch"
        case .watches: "watches"
        case .keepSynced: "keepsynced"
        case .offline: "offline"
        case .online: "online"
        case .drop: "drop"
        case .status: "status"
        case .onDisconnect: "ondisconnect"
        case .cd: "cd"
        case .pwd: "pwd"
        case .sleep: "sleep"
        case .client: "client"
        case .clients: "clients"
        case .as: "as"
        case .serverClockSkew, .serverLatency, .serverTimeout: "server"
        case .auth: "auth"
        case .rules: "rules"
        case .explain: "explain"
        case .lua: "lua"
        case .run: "run"
        case .plugins: "plugins"
        case .help: "help"
        case .timing: "timing"
        case .trace: "trace"
        case .inspect: "inspect"
        case .view: "view"
        case .pager: "pager"
        case .output: "output"
        case .history: "history"
        case .clear: "clear"
        case .exit: "exit"
        case .plugin(let word, _): word.text
        }
    }
}
