/// Lays out help text for a terminal of a given width: a two-column list (usage, then its
/// summary, wrapped at word boundaries) and wrapped paragraphs.
struct HelpLayout {
    /// The width lines must fit in (80 columns).
    let width: Int
    /// The widest usage column: a longer usage takes a line of its own, its summary the next.
    let maximumUsageWidth: Int

    /// A layout for `width` columns.
    init(width: Int = 80, maximumUsageWidth: Int = 32) {
        self.width = width
        self.maximumUsageWidth = maximumUsageWidth
    }

    /// `entries` as "  usage  summary" lines: the summary column starts after the widest usage
    /// that fits the usage column; each summary wraps under itself. `dim` styles the summaries.
    func columns(_ entries: [(usage: String, summary: String)], dim: (String) -> String = { $0 }) -> [String] {
        let usageWidth = entries.map(\.usage.count).filter { $0 <= maximumUsageWidth }.max() ?? 0
        let summaryColumn = 2 + usageWidth + 2
        var lines: [String] = []
        for entry in entries {
            let summary = wrap(entry.summary, width: max(20, width - summaryColumn))
            let pad = String(repeating: " ", count: summaryColumn)
            if entry.usage.count > usageWidth {
                lines.append("  " + entry.usage)
                lines += summary.map { pad + dim($0) }
            } else {
                let first = "  " + entry.usage + String(repeating: " ", count: usageWidth - entry.usage.count + 2)
                lines.append(first + dim(summary.first ?? ""))
                lines += summary.dropFirst().map { pad + dim($0) }
            }
        }
        return lines
    }

    /// `text` wrapped at word boundaries into lines of at most `width` characters, each
    /// starting with `indent` (a word longer than a line keeps a line of its own, unbroken).
    func paragraph(_ text: String, indent: String = "") -> [String] {
        wrap(text, width: max(20, width - indent.count)).map { indent + $0 }
    }

    /// Wraps `text` into lines of at most `width` characters, breaking only between words.
    /// - Complexity: O(n) in the length of `text`.
    func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }
}
