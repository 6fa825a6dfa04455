/// A method of the rules language: a snapshot's (`val()`, `child()`, `exists()`, ...) or a
/// string's (`beginsWith()`, `matches()`, ...). A rule's calls are resolved to one once, when
/// the rule compiles, so that evaluating a call matches no names. Also the names the language
/// knows, for the checker: variables, methods and the query's properties.
enum RuleMethod: String, Sendable, CaseIterable {
    case val, child, parent, hasChild, hasChildren, exists, getPriority, isNumber, isString, isBoolean
    case contains, beginsWith, endsWith, replace, toLowerCase, toUpperCase, matches

    /// Whether a snapshot has it (else a string does).
    var isSnapshotMethod: Bool {
        switch self {
        case .val, .child, .parent, .hasChild, .hasChildren, .exists, .getPriority, .isNumber, .isString, .isBoolean: true
        case .contains, .beginsWith, .endsWith, .replace, .toLowerCase, .toUpperCase, .matches: false
        }
    }

    static let variables: Set<String> = ["auth", "root", "data", "newData", "now", "query"]
    static let snapshotMethods = Set(allCases.filter(\.isSnapshotMethod).map(\.rawValue))
    static let stringMethods = Set(allCases.filter { !$0.isSnapshotMethod }.map(\.rawValue))
    static let queryProperties: Set<String> = [
        "orderByKey", "orderByChild", "orderByValue", "orderByPriority", "startAt", "endAt", "equalTo", "limitToFirst",
        "limitToLast",
    ]
}
