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
    /// - Parameter capacity: the bytes to reserve for the output, for a writer that knows
    ///   roughly how much it will write (a protocol frame): no growing on the way there.
    public init(pretty: Bool = false, capacity: Int = 0) {
        self.pretty = pretty
        if capacity > 0 { output.reserveCapacity(capacity) }
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
    ///
    /// Scans the UTF-8 bytes: everything that needs an escape is ASCII (`"`, `\\`, control
    /// characters), so the runs between escapes are appended whole, and a string without any
    /// (the usual key or value) in one append.
    /// - Complexity: O(n) in the length of `text`.
    public static func writeString(_ text: String, to output: inout String) {
        output += "\""
        let utf8 = text.utf8
        var plainStart = utf8.startIndex
        var index = plainStart
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                index = utf8.index(after: index)
                continue
            }
            let escape: String
            switch byte {
            case UInt8(ascii: "\""): escape = "\\\""
            case UInt8(ascii: "\\"): escape = "\\\\"
            case UInt8(ascii: "\n"): escape = "\\n"
            case UInt8(ascii: "\r"): escape = "\\r"
            case UInt8(ascii: "\t"): escape = "\\t"
            case 0x08: escape = "\\b"
            case 0x0C: escape = "\\f"
            default: escape = "\\u" + String(byte, radix: 16).leftPadded(4)
            }
            if plainStart != index { output += Substring(utf8[plainStart..<index]) }
            output += escape
            index = utf8.index(after: index)
            plainStart = index
        }
        if plainStart == utf8.startIndex {
            output += text
        } else if plainStart != utf8.endIndex {
            output += Substring(utf8[plainStart..<utf8.endIndex])
        }
        output += "\""
    }
}
