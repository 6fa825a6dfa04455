import EmberCore
import Testing

@testable import EmberQL

@Suite struct CommandDescriptionTests {
    @Test(arguments: CommandDescription.builtins.map(\.name))
    func everyExampleParsesToItsCommand(_ name: String) throws {
        let description = try #require(CommandDescription.builtins.first { $0.name == name })
        let command = try parsed(description.example)
        #expect(command.name == description.name)
        if case .plugin = command { Issue.record("\(description.example) is a plugin command") }
    }

    @Test func namesAndAliasesAreUnique() {
        let names = CommandDescription.builtins.flatMap { [$0.name] + $0.aliases }
        #expect(Set(names).count == names.count)
        #expect(CommandDescription.builtins.first { $0.name == "remove" }?.aliases == ["rm"])
        #expect(CommandDescription.builtins.first { $0.name == "exit" }?.aliases == ["quit", "\\q"])
    }

    @Test func everyAliasParsesAsItsCommand() throws {
        for description in CommandDescription.builtins {
            for alias in description.aliases {
                let example = alias + description.example.dropFirst(description.name.count)
                #expect(try parsed(example).name == description.name, "\(example)")
            }
        }
    }

    @Test func groupsAreTheShellsSections() {
        let groups = CommandDescription.builtins.map(\.group).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        #expect(groups == ["Data", "Live", "Connection and presence", "Location", "Clients and the server", "Security", "Scripting and the rest"])
        for description in CommandDescription.builtins {
            #expect(!description.summary.isEmpty && description.summary.hasSuffix("."), "\(description.name)")
            #expect(description.example.hasPrefix(description.name), "\(description.name)")
        }
    }

    /// One command of every case, so a new case without a description fails here.
    static let oneOfEach: [String] = [
        "get", "ls", "tree", "set /a 1", "update /a {}", "push /a", "remove /a", "increment /a", "transaction /a f",
        "priority /a 1", "export", "import /a f", "watch", "unwatch all", "watches", "trace on all", "inspect", "view", "tour", "keepsynced /a on", "offline",
        "online", "drop", "status", "ondisconnect /a cancel", "cd", "pwd", "client a", "clients", "as a pwd",
        "server clock skew 1", "server latency 1", "server timeout 1", "auth", "rules", "explain", "sleep 1", "lua", "run f", "plugins", "help", "timing", "pager off", "output", "history",
        "clear", "exit",
    ]

    @Test(arguments: oneOfEach)
    func everyCommandHasADescription(_ source: String) throws {
        let name = try parsed(source).name
        #expect(CommandDescription.builtins.contains { $0.name == name }, "\(name)")
    }

    @Test func everyCaseIsCovered() throws {
        // Exhaustive switch: a new case of Command breaks this build until it is added to oneOfEach.
        var covered = Set<String>()
        for source in Self.oneOfEach {
            switch try parsed(source) {
            case .get, .ls, .tree, .set, .update, .push, .remove, .increment, .transaction, .priority, .export, .import,
                .watch, .unwatch, .watches, .trace, .inspect, .view, .tour, .keepSynced, .offline, .online, .drop, .status, .onDisconnect, .cd, .pwd,
                .client, .clients, .as, .serverClockSkew, .serverLatency, .serverTimeout, .auth, .rules, .explain, .sleep, .lua, .run, .plugins, .help, .timing, .pager, .output,
                .history, .clear, .exit:
                covered.insert(source)
            case .plugin:
                Issue.record("\(source) is a plugin command")
            }
        }
        #expect(covered.count == Self.oneOfEach.count)
        #expect(CommandDescription.builtins.count == 45)
    }
}
