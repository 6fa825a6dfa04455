/// A value of a rules file, as JSON, with the line and column (1-based) where it starts.
enum RulesNode {
    /// A member of an object.
    struct Member {
        let key: String
        let value: RulesNode
    }

    case object([Member], RulesPosition)
    case array([RulesNode], RulesPosition)
    case string(String, RulesPosition)
    case number(Double, RulesPosition)
    case boolean(Bool, RulesPosition)
    case null(RulesPosition)

    var position: RulesPosition {
        switch self {
        case .object(_, let position), .array(_, let position), .string(_, let position), .number(_, let position),
            .boolean(_, let position), .null(let position):
            position
        }
    }

    /// How it is named in an error.
    var kind: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .boolean: "a boolean"
        case .null: "null"
        }
    }
}
