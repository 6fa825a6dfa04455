import EmberCore

extension Ruleset {
    /// The open rules as a document (what `GET /.settings/rules.json` answers when none were
    /// loaded, as the emulator does).
    public static let openSource = """
        {
          "rules": {
            ".read": true,
            ".write": true
          }
        }
        """

    /// The rules document as plain JSON: comments dropped, members in their order
    /// (`GET /.settings/rules.json?format=strict`).
    public var strictJSON: JSONValue {
        guard let document = try? RulesDocument.parse(source ?? Self.openSource) else { return .null }
        return Self.json(document)
    }

    private static func json(_ node: RulesNode) -> JSONValue {
        switch node {
        case .object(let members, _): .object(members.map { ($0.key, json($0.value)) })
        case .array(let elements, _): .array(elements.map(json))
        case .string(let text, _): .string(text)
        case .number(let number, _): number == number.rounded() && abs(number) < 0x1p53 ? .int(Int64(number)) : .double(number)
        case .boolean(let flag, _): .bool(flag)
        case .null: .null
        }
    }
}
