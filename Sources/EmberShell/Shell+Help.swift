import EmberCore
import EmberQL
import Foundation

/// `help`, `timing`, `output`, `history`: the shell's own settings and documentation.
extension Shell {
    /// Every command `help` knows: the built-ins, then the plugins' commands.
    public var commandRegistry: [CommandDescription] {
        CommandDescription.builtins + pluginCommands.map(\.description)
    }

    func help(_ topic: Word?) throws(ShellError) -> CommandResult {
        try Self.help(topic, registry: commandRegistry, style: style)
    }

    /// `help [TOPIC]` over `registry`: every command by group, a topic page, or one command.
    /// Needs no session: `ember help` prints it without opening a database.
    static func help(_ topic: Word?, registry: [CommandDescription], style: TextStyle) throws(ShellError) -> CommandResult {
        let layout = HelpLayout()
        guard let topic else {
            var groups: [String] = []
            for command in registry where !groups.contains(command.group) { groups.append(command.group) }
            var lines: [String] = []
            for group in groups {
                lines.append(style.bold(group + ":"))
                let commands = registry.filter { $0.group == group }
                lines += layout.columns(
                    commands.map { ($0.name + ($0.syntax.isEmpty ? "" : " " + $0.syntax), $0.summary) }, dim: style.dim)
                lines.append("")
            }
            lines.append(style.bold("Topics:"))
            lines += layout.columns(HelpTopic.all.map { ("help " + $0.name, $0.summary) }, dim: style.dim)
            lines.append("")
            lines += layout.paragraph(
                "help COMMAND shows one command with an example. Paths are absolute (/a/b) or relative to cd.")
            return .report(text: lines.joined(separator: "\n"), json: .array(registry.map(Self.describe)))
        }
        let name = topic.text.lowercased()
        if let page = HelpTopic.all.first(where: { $0.name == name }) {
            // A topic named as a command (offline, rules) ends with the command's own help.
            let shown = show(page, layout: layout, style: style)
            guard let command = registry.first(where: { $0.name.lowercased() == name }), case .report(let text?, let json) = shown else { return shown }
            var lines = ["", style.bold(command.name + (command.syntax.isEmpty ? "" : " " + command.syntax))]
            lines += layout.paragraph(command.summary, indent: "  ")
            lines.append("  example: " + command.example)
            return .report(text: text + "\n" + lines.joined(separator: "\n"), json: json)
        }
        guard let command = registry.first(where: { $0.name.lowercased() == name || $0.aliases.contains { $0.lowercased() == name } }) else {
            let suggestion = Self.closest(to: name, in: registry.flatMap { [$0.name] + $0.aliases } + HelpTopic.all.map(\.name))
            throw .command(ErrorCode.unknownCommand, "no command or topic '\(topic.text)'" + (suggestion.map { " (did you mean \($0)?)" } ?? ""), at: topic.position)
        }
        var lines = [style.bold(command.name + (command.syntax.isEmpty ? "" : " " + command.syntax))]
        lines += layout.paragraph(command.summary, indent: "  ")
        if !command.aliases.isEmpty { lines.append("  also: " + command.aliases.joined(separator: ", ")) }
        lines.append("  example: " + command.example)
        return .report(text: lines.joined(separator: "\n"), json: Self.describe(command))
    }

    /// Prints a help topic: its paragraphs wrapped, its tables as two columns (JSON: the text).
    private static func show(_ page: HelpTopic, layout: HelpLayout, style: TextStyle) -> CommandResult {
        var lines = [style.bold("help " + page.name + ": " + page.summary), ""]
        for paragraph in page.paragraphs {
            if paragraph.contains("\t") {
                let rows = paragraph.split(separator: "\n").map { row in
                    let parts = row.split(separator: "\t", maxSplits: 1).map(String.init)
                    return (parts[0], parts.count > 1 ? parts[1] : "")
                }
                lines += layout.columns(rows, dim: style.dim)
            } else {
                lines += layout.paragraph(paragraph)
            }
            lines.append("")
        }
        let text = lines.dropLast().joined(separator: "\n")
        return .report(text: text, json: .object([("topic", .string(page.name)), ("summary", .string(page.summary)), ("text", .string(text))]))
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

    func setTiming(_ on: Bool?) -> CommandResult {
        if let on { state.timing = on }
        return .report(text: "timing is \(state.timing ? "on" : "off")", json: .object([("timing", .bool(state.timing))]))
    }

    func setPager(_ on: Bool?) -> CommandResult {
        if let on { state.pagerEnabled = on }
        return .report(text: "pager is \(state.pagerEnabled ? "on" : "off")", json: .object([("pager", .bool(state.pagerEnabled))]))
    }

    func setOutput(_ mode: OutputMode?) -> CommandResult {
        if let mode {
            state.outputMode = mode
            style.colored = colorAllowed && mode != .json
        }
        return .report(text: "output is \(state.outputMode.rawValue)", json: .object([("output", .string(state.outputMode.rawValue))]))
    }

    func showHistory() -> CommandResult {
        let entries = historyEntries?() ?? []
        let width = String(entries.count).count
        let lines = entries.enumerated().map { index, entry in
            let number = String(index + 1)
            return String(repeating: " ", count: width - number.count) + number + "  "
                + entry.replacingOccurrences(of: "\n", with: "\n" + String(repeating: " ", count: width + 2))
        }
        return .report(text: lines.isEmpty ? nil : lines.joined(separator: "\n"), json: .array(entries.map(JSONValue.string)))
    }
}
