/// The static type of a rule sub-expression, as far as it is known before evaluation.
enum RuleType: Sendable, Hashable {
    case boolean
    case number
    case string
    case null
    /// A primitive of unknown kind (a snapshot's `val()`, a query's `startAt`): string, number,
    /// boolean or null.
    case primitive
    /// Anything: a member of `auth`, which may be an object, a primitive or missing.
    case any
    /// `auth` itself: an object, or null when not signed in.
    case auth
    /// A snapshot: `root`, `data`, `newData`, or one of their `child()`/`parent()`.
    case snapshot
    /// `query`.
    case query
    /// A regular expression literal.
    case regex
    /// An array literal.
    case array
    /// A method, not called yet: a snapshot's, a string's, or, on `any`, a name that must turn
    /// out to be a string method when called.
    case snapshotMethod(String)
    case stringMethod(String)
    /// A member of `any` that could be a property or, called, a string method.
    case anyMember(String)
    /// Two branches of a conditional of different kinds (`x ? 7 : true`).
    case mixed

    /// Whether a value of this type may be a boolean at run time.
    var mayBeBoolean: Bool {
        switch self {
        case .boolean, .primitive, .any, .anyMember: true
        default: false
        }
    }

    /// Whether a value of this type may be a number at run time.
    var mayBeNumber: Bool {
        switch self {
        case .number, .primitive, .any, .anyMember: true
        default: false
        }
    }

    /// Whether a value of this type may be a string at run time.
    var mayBeString: Bool {
        switch self {
        case .string, .primitive, .any, .anyMember: true
        default: false
        }
    }

    /// How it is named in an error.
    var name: String {
        switch self {
        case .boolean: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .null: "null"
        case .primitive: "a value"
        case .any, .anyMember: "a value"
        case .auth: "auth"
        case .snapshot: "a snapshot"
        case .query: "query"
        case .regex: "a regular expression"
        case .array: "an array"
        case .snapshotMethod(let name), .stringMethod(let name): "the method \(name)"
        case .mixed: "a value of mixed kinds"
        }
    }
}
