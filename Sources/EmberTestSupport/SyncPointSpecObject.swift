import EmberCore

/// The members of one JSON object of the spec file, read by name; a member never read is an error.
struct SyncPointSpecObject {
    /// Where the object is, for error messages ("case 3 \"name\", step 2 (listen)").
    var context: String
    private let members: [(key: String, value: JSONValue)]
    private var read: Set<String> = []

    /// Wraps `json`, which must be an object without repeated member names.
    init(_ json: JSONValue, context: String) throws {
        guard case .object(let members) = json else {
            throw SyncPointSpecError("\(context): expected a JSON object, found \(Self.describe(json))")
        }
        var seen: Set<String> = []
        for member in members {
            guard seen.insert(member.key).inserted else {
                throw SyncPointSpecError("\(context): the member \"\(member.key)\" appears twice")
            }
        }
        self.members = members
        self.context = context
    }

    /// The member named `key`, or `nil` when absent; marks it as read.
    mutating func optional(_ key: String) -> JSONValue? {
        read.insert(key)
        return members.first { $0.key == key }?.value
    }

    /// The member named `key`.
    mutating func required(_ key: String) throws -> JSONValue {
        guard let value = optional(key) else {
            throw SyncPointSpecError("\(context): the member \"\(key)\" is missing")
        }
        return value
    }

    /// The string member named `key`.
    mutating func string(_ key: String) throws -> String {
        let value = try required(key)
        guard case .string(let text) = value else { throw mistyped(key, value, expected: "a string") }
        return text
    }

    /// The string member named `key`, or `nil` when absent or `null`.
    mutating func optionalString(_ key: String) throws -> String? {
        switch optional(key) {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let value?: throw mistyped(key, value, expected: "a string or null")
        }
    }

    /// The integer member named `key`.
    mutating func int(_ key: String) throws -> Int {
        let value = try required(key)
        guard case .int(let number) = value else { throw mistyped(key, value, expected: "an integer") }
        return Int(number)
    }

    /// The integer member named `key`, or `nil` when absent or `null`.
    mutating func optionalInt(_ key: String) throws -> Int? {
        switch optional(key) {
        case nil, .null?: return nil
        case .int(let number)?: return Int(number)
        case let value?: throw mistyped(key, value, expected: "an integer")
        }
    }

    /// The boolean member named `key`, or `nil` when absent or `null`.
    mutating func optionalBool(_ key: String) throws -> Bool? {
        switch optional(key) {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        case let value?: throw mistyped(key, value, expected: "a boolean")
        }
    }

    /// The array member named `key`.
    mutating func array(_ key: String) throws -> [JSONValue] {
        let value = try required(key)
        guard case .array(let elements) = value else { throw mistyped(key, value, expected: "an array") }
        return elements
    }

    /// The string member named `key`, as a path (split on `/`, empty segments dropped).
    mutating func path(_ key: String) throws -> Path {
        Path(unchecked: try string(key))
    }

    /// Throws when a member was never read: the runner does not know what it means.
    func finish() throws {
        let unknown = members.map(\.key).filter { !read.contains($0) }
        guard unknown.isEmpty else {
            let names = unknown.map { "\"\($0)\"" }.joined(separator: ", ")
            throw SyncPointSpecError("\(context): unknown member\(unknown.count == 1 ? "" : "s") \(names)")
        }
    }

    /// The error for a member of the wrong JSON type.
    private func mistyped(_ key: String, _ value: JSONValue, expected: String) -> SyncPointSpecError {
        SyncPointSpecError("\(context): the member \"\(key)\" must be \(expected), not \(Self.describe(value))")
    }

    /// A JSON value's kind and text, for error messages.
    static func describe(_ json: JSONValue) -> String {
        let kind = json.kindDescription
        let text = json.serialized()
        return text.count > 60 ? kind : "\(kind) \(text)"
    }
}
