import EmberCore
import EmberQL
import Foundation

/// `help`, `timing`, `output`, `history`: the shell's own settings and documentation.
extension Shell {
    /// Every command `help` knows: the built-ins, then the plugins' commands.
    public var commandRegistry: [CommandDescription] {
        CommandDescription.builtins + pluginCommands.map(\.description)
    }

    func help(_ topic: Word?) throws(ShellError) {
        let registry = commandRegistry
        guard let topic else {
            var groups: [String] = []
            for command in registry where !groups.contains(command.group) { groups.append(command.group) }
            var lines: [String] = []
            for group in groups {
                lines.append(style.bold(group + ":"))
                let commands = registry.filter { $0.group == group }
                let width = commands.map { ($0.name + " " + $0.syntax).count }.max() ?? 0
                for command in commands {
                    let usage = command.name + (command.syntax.isEmpty ? "" : " " + command.syntax)
                    lines.append("  " + usage + String(repeating: " ", count: max(width - usage.count, 0) + 2) + style.dim(command.summary))
                }
                lines.append("")
            }
            lines.append("help COMMAND shows one command with an example. Paths are absolute (/a/b) or relative to cd.")
            if isJSON {
                printJSON(.array(registry.map(Self.describe)))
            } else {
                print(lines.joined(separator: "\n"))
            }
            return
        }
        let name = topic.text.lowercased()
        guard let command = registry.first(where: { $0.name.lowercased() == name || $0.aliases.contains { $0.lowercased() == name } }) else {
            let suggestion = Self.closest(to: name, in: registry.flatMap { [$0.name] + $0.aliases })
            throw .command(ErrorCode.unknownCommand, "no command '\(topic.text)'" + (suggestion.map { " (did you mean \($0)?)" } ?? ""), at: topic.position)
        }
        if isJSON {
            printJSON(Self.describe(command))
            return
        }
        var lines = [style.bold(command.name + (command.syntax.isEmpty ? "" : " " + command.syntax)), "  " + command.summary]
        if !command.aliases.isEmpty { lines.append("  also: " + command.aliases.joined(separator: ", ")) }
        lines.append("  example: " + command.example)
        print(lines.joined(separator: "\n"))
    }

    private static func describe(_ command: CommandDescription) -> JSONValue {
        .object([
            ("name", .string(command.name)), ("aliases", .array(command.aliases.map(JSONValue.string))),
            ("syntax", .string(command.syntax)), ("summary", .string(command.summary)),
            ("example", .string(command.example)), ("group", .string(command.group)),
        ])
    }

    /// The candidate nearest to `word` by edit distance, when it is near enough to be a typo.
    static func closest(to word: String, in candidates: [String]) -> String? {
        Suggestion.closest(to: word, in: candidates)
    }

    func setTiming(_ on: Bool?) {
        if let on { timing = on }
        if isJSON { printJSON(.object([("timing", .bool(timing))])) } else { print("timing is \(timing ? "on" : "off")") }
    }

    func setOutput(_ mode: OutputMode?) {
        if let mode {
            outputMode = mode
            style.colored = colorAllowed && mode != .json
        }
        if isJSON { printJSON(.object([("output", .string(outputMode.rawValue))])) } else { print("output is \(outputMode.rawValue)") }
    }

    func showHistory() {
        let entries = historyEntries?() ?? []
        if isJSON {
            printJSON(.array(entries.map(JSONValue.string)))
            return
        }
        let width = String(entries.count).count
        for (index, entry) in entries.enumerated() {
            let number = String(index + 1)
            print(String(repeating: " ", count: width - number.count) + number + "  " + entry.replacingOccurrences(of: "\n", with: "\n" + String(repeating: " ", count: width + 2)))
        }
    }
}
