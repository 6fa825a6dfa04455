/// A JSON document as parsed: exact integers apart from doubles, object members in input order.
///
/// This is the codec's intermediate form. ``Node`` turns it into database data (validating keys,
/// depth, priorities and server values) with ``Node/init(json:at:)``.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// An integral literal that fits in 64 bits.
    case int(Int64)
    /// Any other number.
    case double(Double)
    case string(String)
    case array([JSONValue])
    /// Members in the order they were written; a repeated name appears twice.
    case object([(key: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): StringOrder.bytesEqual(a, b)
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { StringOrder.bytesEqual($0.key, $1.key) && $0.value == $1.value }
        default: false
        }
    }

    /// Hashes the compact text, which equal values share.
    /// - Complexity: O(n) in the size of the value.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(serialized())
    }

    /// Parses JSON text.
    /// - Throws: ``DatabaseError`` `malformed_json` with the line and column of the problem.
    public init(parsing text: String) throws(DatabaseError) {
        self = try JSONParser.parse(text)
    }

    /// The value as JSON text, compact or indented by two spaces.
    public func serialized(pretty: Bool = false) -> String {
        var writer = JSONWriter(pretty: pretty)
        writer.write(self)
        return writer.output
    }

    /// The member named `key` of an object (the last one when repeated).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { StringOrder.bytesEqual($0.key, key) }?.value
    }
}
