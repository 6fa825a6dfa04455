/// Writes JSON text, compact or indented, from a ``JSONValue`` or directly from a ``Node``.
///
/// Object members of a node come in Firebase key order. Strings escape `"`, `\` and control
/// characters and keep all other characters as UTF-8. Numbers are exact: integers in decimal,
/// doubles in their shortest form that reads back to the same double.
public struct JSONWriter {
    /// The text written so far.
    public private(set) var output = ""
    private let pretty: Bool
    private var depth = 0

    /// A writer; `pretty` indents nested values by two spaces.
    public init(pretty: Bool = false) {
        self.pretty = pretty
    }

    /// Appends `text` as it is: for a caller assembling a document around values (a protocol
    /// frame), which must itself keep the text well-formed.
    public mutating func append(raw text: String) {
        output += text
    }

    /// Writes `text` as a JSON string.
    public mutating func write(string text: String) {
        Self.writeString(text, to: &output)
    }

    /// Writes a parsed JSON value.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .int(let number): output += String(number)
        case .double(let number): Self.writeDouble(number, to: &output)
        case .string(let text): Self.writeString(text, to: &output)
        case .array(let elements):
            writeContainer(open: "[", close: "]", elements) { writer, element in writer.write(element) }
        case .object(let members):
            writeContainer(open: "{", close: "}", members) { writer, member in
                Self.writeString(member.key, to: &writer.output)
                writer.output += writer.pretty ? ": " : ":"
                writer.write(member.value)
            }
        }
    }

    /// Writes a node in the given format.
    /// - Complexity: O(n) in the size of the tree.
    public mutating func write(_ node: Node, format: JSONFormat) {
        switch node.base {
        case .empty:
            output += "null"
        case .leaf(let value):
            if format == .export, let priority = node.priority {
                writeContainer(open: "{", close: "}", [LeafValue?.some(value), nil]) { writer, item in
                    if let value = item {
                        writer.output += writer.pretty ? "\".value\": " : "\".value\":"
                        Self.writeLeaf(value, to: &writer.output)
                    } else {
                        writer.output += writer.pretty ? "\".priority\": " : "\".priority\":"
                        Self.writeLeaf(priority.leafValue, to: &writer.output)
                    }
                }
            } else {
                Self.writeLeaf(value, to: &output)
            }
        default:
            if format == .normal, let length = node.arrayLength {
                var elements = [Node](repeating: .empty, count: length)
                for child in node.children { elements[Int(child.key.integerValue!)] = child.node }
                writeContainer(open: "[", close: "]", elements) { writer, element in
                    writer.write(element, format: format)
                }
                return
            }
            var members: [NamedNode?] = node.children.map { $0 }
            if format == .export, node.priority != nil { members.append(nil) }
            writeContainer(open: "{", close: "}", members) { writer, member in
                if let member {
                    Self.writeString(member.key.name, to: &writer.output)
                    writer.output += writer.pretty ? ": " : ":"
                    writer.write(member.node, format: format)
                } else {
                    writer.output += writer.pretty ? "\".priority\": " : "\".priority\":"
                    Self.writeLeaf(node.priority!.leafValue, to: &writer.output)
                }
            }
        }
    }

    private mutating func writeContainer<Element>(
        open: String, close: String, _ elements: [Element], _ body: (inout JSONWriter, Element) -> Void
    ) {
        output += open
        guard !elements.isEmpty else {
            output += close
            return
        }
        depth += 1
        for (offset, element) in elements.enumerated() {
            if offset > 0 { output += "," }
            if pretty { newline() }
            body(&self, element)
        }
        depth -= 1
        if pretty { newline() }
        output += close
    }

    private mutating func newline() {
        output += "\n"
        output += String(repeating: "  ", count: depth)
    }

    /// Writes a leaf value as JSON (server values as their `{".sv": ...}` placeholder).
    public static func writeLeaf(_ value: LeafValue, to output: inout String) {
        switch value {
        case .bool(let flag): output += flag ? "true" : "false"
        case .int(let number): output += String(number)
        case .double(let number): writeDouble(number, to: &output)
        case .string(let text): writeString(text, to: &output)
        case .deferred(.timestamp): output += "{\".sv\":\"timestamp\"}"
        case .deferred(.increment(let delta)):
            output += "{\".sv\":{\"increment\":"
            writeLeaf(delta, to: &output)
            output += "}}"
        }
    }

    static func writeDouble(_ number: Double, to output: inout String) {
        // Swift's description is the shortest text that reads back as the same double.
        output += number.description
    }

    /// Writes a string literal with JSON escapes.
    public static func writeString(_ text: String, to output: inout String) {
        output += "\""
        var plainStart = text.unicodeScalars.startIndex
        var index = plainStart
        let scalars = text.unicodeScalars
        while index != scalars.endIndex {
            let scalar = scalars[index]
            let escape: String?
            switch scalar {
            case "\"": escape = "\\\""
            case "\\": escape = "\\\\"
            case "\n": escape = "\\n"
            case "\r": escape = "\\r"
            case "\t": escape = "\\t"
            case "\u{08}": escape = "\\b"
            case "\u{0C}": escape = "\\f"
            case _ where scalar.value < 0x20:
                escape = "\\u" + String(scalar.value, radix: 16).leftPadded(4)
            default: escape = nil
            }
            if let escape {
                // Through a Substring: appending to `output.unicodeScalars` copied all of
                // `output` each time (quadratic in the text written).
                output += Substring(scalars[plainStart..<index])
                output += escape
                plainStart = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        output += Substring(scalars[plainStart..<scalars.endIndex])
        output += "\""
    }
}
