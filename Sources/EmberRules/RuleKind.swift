/// Which rule an expression is: it decides the variables it may use.
public enum RuleKind: String, Sendable, Hashable, CaseIterable {
    case read = ".read"
    case write = ".write"
    case validate = ".validate"

    /// `.read` has `query`; `.write` and `.validate` have `newData`.
    var variables: Set<String> {
        switch self {
        case .read: ["auth", "root", "data", "now", "query"]
        case .write, .validate: ["auth", "root", "data", "newData", "now"]
        }
    }
}
