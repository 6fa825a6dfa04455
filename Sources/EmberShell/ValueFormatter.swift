import EmberCore

/// Renders database values for people: indented, coloured JSON, one-line summaries, trees and
/// tables.
public struct ValueFormatter: Sendable {
    /// The styles in use.
    public var style: TextStyle
    /// Containers whose compact JSON is at most this long are shown whole in summaries.
    public static let inlineLimit = 60

    /// Creates a formatter.
    public init(style: TextStyle) {
        self.style = style
    }

    /// Indented JSON (two spaces), coloured by kind.
    /// - Complexity: O(n) in the size of the value.
    public func pretty(_ value: JSONValue) -> String {
        var output = ""
        write(value, indent: "", to: &output)
        return output
    }

    /// Compact JSON, coloured by kind (for event lines and summaries).
    public func compact(_ value: JSONValue) -> String {
        guard style.colored else { return value.serialized() }
        switch value {
        case .object(let members):
            return "{" + members.map { style.key(quoted($0.key)) + ":" + compact($0.value) }.joined(separator: ",") + "}"
        case .array(let elements):
            return "[" + elements.map(compact).joined(separator: ",") + "]"
        default:
            return scalar(value)
        }
    }

    /// A short description of a child: a scalar or a small container as compact JSON, a larger
    /// container by its size (`{3 children}`, `[2 items]`).
    /// - Complexity: O(min(n, ``inlineLimit``)) for a container: its size is measured only as
    ///   far as the limit (`ls` of a location whose children hold thousands of children each
    ///   must not serialize them).
    public func summary(_ value: JSONValue) -> String {
        switch value {
        case .object where Self.fitsInline(value), .array where Self.fitsInline(value):
            compact(value)
        case .object(let members):
            style.dim(members.count == 1 ? "{1 child}" : "{\(members.count) children}")
        case .array(let elements):
            style.dim(elements.count == 1 ? "[1 item]" : "[\(elements.count) items]")
        default:
            scalar(value)
        }
    }

    /// Whether `value`'s compact JSON is at most ``inlineLimit`` long, measured no further than
    /// that.
    /// - Complexity: O(min(n, ``inlineLimit``)).
    static func fitsInline(_ value: JSONValue) -> Bool {
        var budget = inlineLimit
        return spend(value, from: &budget)
    }

    /// Subtracts `value`'s compact length from `budget`; false as soon as it runs out.
    private static func spend(_ value: JSONValue, from budget: inout Int) -> Bool {
        switch value {
        case .object(let members):
            budget -= 2 + max(0, members.count - 1)
            for member in members {
                // The key's quotes and colon, then the key (its escapes only make it longer).
                budget -= 3 + member.key.utf8.count
                if budget < 0 || !spend(member.value, from: &budget) { return false }
            }
        case .array(let elements):
            budget -= 2 + max(0, elements.count - 1)
            for element in elements where budget < 0 || !spend(element, from: &budget) { return false }
        case .string(let text):
            // Long strings are ruled out before they are escaped.
            budget -= 2 + text.utf8.count
            if budget >= 0 { budget += 2 + text.utf8.count - value.serialized().utf8.count }
        default:
            budget -= value.serialized().utf8.count
        }
        return budget >= 0
    }

    /// An indented tree of `node` under the label `name`, `depth` levels deep (all when `nil`);
    /// deeper containers show as summaries.
    /// - Complexity: O(n) in the size of what is shown.
    public func tree(_ node: Node, name: String, depth: Int?) -> String {
        var lines = [style.bold(name) + (node.isLeaf || node.isEmpty ? ": " + scalarOrNull(node) : "")]
        appendChildren(of: node, prefix: "", depth: depth, to: &lines)
        return lines.joined(separator: "\n")
    }

    private func appendChildren(of node: Node, prefix: String, depth: Int?, to lines: inout [String]) {
        guard !node.isLeaf, depth.map({ $0 > 0 }) ?? true else { return }
        let children = Array(node.children)
        for (offset, child) in children.enumerated() {
            let last = offset == children.count - 1
            let branch = prefix + (last ? "└─ " : "├─ ")
            let label = style.key(child.key.name)
            if child.node.isLeaf {
                lines.append(branch + label + ": " + scalarOrNull(child.node))
            } else if let depth, depth <= 1 {
                lines.append(branch + label + " " + summary(child.node.jsonValue(.normal)))
            } else {
                lines.append(branch + label)
                appendChildren(of: child.node, prefix: prefix + (last ? "   " : "│  "), depth: depth.map { $0 - 1 }, to: &lines)
            }
        }
    }

    /// Rows of a table: one per child, a column per field of the children (a scalar child has a
    /// single `value` column).
    public func table(_ rows: [(key: String, value: JSONValue)]) -> String {
        var columns: [String] = []
        var seen: Set<String> = []
        var hasScalar = false
        for row in rows {
            if case .object(let members) = row.value {
                for member in members where seen.insert(member.key).inserted { columns.append(member.key) }
            } else {
                hasScalar = true
            }
        }
        if hasScalar { columns.insert(".value", at: 0) }
        var table: [[String]] = [["key"] + columns]
        for row in rows {
            var cells = [row.key]
            for column in columns {
                if column == ".value" {
                    if case .object = row.value { cells.append("") } else { cells.append(plainSummary(row.value)) }
                } else {
                    cells.append(row.value[column].map(plainSummary) ?? "")
                }
            }
            table.append(cells)
        }
        let widths = (0..<table[0].count).map { column in table.map { $0[column].count }.max() ?? 0 }
        return table.enumerated().map { index, cells in
            let line = cells.enumerated().map { column, cell in
                cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ")
            let trimmed = String(line.reversed().drop { $0 == " " }.reversed())
            return index == 0 ? style.bold(trimmed) : trimmed
        }.joined(separator: "\n")
    }

    private func plainSummary(_ value: JSONValue) -> String {
        ValueFormatter(style: TextStyle(colored: false)).summary(value)
    }

    private func scalarOrNull(_ node: Node) -> String {
        scalar(node.jsonValue(.normal))
    }

    private func scalar(_ value: JSONValue) -> String {
        switch value {
        case .null: style.literal("null")
        case .bool(let flag): style.literal(flag ? "true" : "false")
        case .int, .double: style.number(value.serialized())
        case .string: style.string(value.serialized())
        case .array, .object: value.serialized()
        }
    }

    private func quoted(_ key: String) -> String { JSONValue.string(key).serialized() }

    private func write(_ value: JSONValue, indent: String, to output: inout String) {
        switch value {
        case .object(let members) where !members.isEmpty:
            output += "{\n"
            for (index, member) in members.enumerated() {
                output += indent + "  " + style.key(quoted(member.key)) + ": "
                write(member.value, indent: indent + "  ", to: &output)
                output += index == members.count - 1 ? "\n" : ",\n"
            }
            output += indent + "}"
        case .array(let elements) where !elements.isEmpty:
            output += "[\n"
            for (index, element) in elements.enumerated() {
                output += indent + "  "
                write(element, indent: indent + "  ", to: &output)
                output += index == elements.count - 1 ? "\n" : ",\n"
            }
            output += indent + "]"
        default:
            output += scalar(value)
        }
    }
}
