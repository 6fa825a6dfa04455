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
        let layout = HelpLayout()
        guard let topic else {
            if isJSON {
                printJSON(.array(registry.map(Self.describe)))
                return
            }
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
            print(lines.joined(separator: "\n"))
            return
        }
        let name = topic.text.lowercased()
        if let page = HelpTopic.all.first(where: { $0.name == name }) {
            show(page, layout: layout)
            return
        }
        guard let command = registry.first(where: { $0.name.lowercased() == name || $0.aliases.contains { $0.lowercased() == name } }) else {
            let suggestion = Self.closest(to: name, in: registry.flatMap { [$0.name] + $0.aliases } + HelpTopic.all.map(\.name))
            throw .command(ErrorCode.unknownCommand, "no command or topic '\(topic.text)'" + (suggestion.map { " (did you mean \($0)?)" } ?? ""), at: topic.position)
        }
        if isJSON {
            printJSON(Self.describe(command))
            return
        }
        var lines = [style.bold(command.name + (command.syntax.isEmpty ? "" : " " + command.syntax))]
        lines += layout.paragraph(command.summary, indent: "  ")
        if !command.aliases.isEmpty { lines.append("  also: " + command.aliases.joined(separator: ", ")) }
        lines.append("  example: " + command.example)
        print(lines.joined(separator: "\n"))
    }

    /// Prints a help topic: its paragraphs wrapped, its tables as two columns (JSON: the text).
    private func show(_ page: HelpTopic, layout: HelpLayout) {
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
        if isJSON {
            printJSON(.object([("topic", .string(page.name)), ("summary", .string(page.summary)), ("text", .string(lines.dropLast().joined(separator: "\n")))]))
        } else {
            print(lines.dropLast().joined(separator: "\n"))
        }
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

    func setPager(_ on: Bool?) {
        if let on { pagerEnabled = on }
        if isJSON { printJSON(.object([("pager", .bool(pagerEnabled))])) } else { print("pager is \(pagerEnabled ? "on" : "off")") }
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
