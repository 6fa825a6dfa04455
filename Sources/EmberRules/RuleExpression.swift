/// A parsed rule expression: a tree of nodes, each with the range of the source it came from
/// (what `explain` prints beside its value).
public indirect enum RuleExpression: Sendable, Hashable {
    case null
    case boolean(Bool)
    case number(Double)
    case string(String)
    /// `auth`, `root`, `data`, `newData`, `now`, `query`.
    case variable(String)
    /// `$name`, the key a wildcard matched.
    case capture(String)
    /// `base.name`.
    case member(RuleExpression, String, Range<Int>)
    /// `base[key]`.
    case index(RuleExpression, RuleExpression, Range<Int>)
    /// `callee(arguments)`, the callee being a member or an index.
    case call(RuleExpression, [RuleExpression], Range<Int>)
    /// `!operand`, `-operand`.
    case unary(String, RuleExpression, Range<Int>)
    /// `left op right`.
    case binary(String, RuleExpression, RuleExpression, Range<Int>)
    /// `condition ? then : otherwise`.
    case conditional(RuleExpression, RuleExpression, RuleExpression, Range<Int>)
    /// `[elements]` (only as `hasChildren`'s argument).
    case array([RuleExpression], Range<Int>)
    /// `/pattern/flags`, checked and compiled.
    case regex(RuleRegex)

    /// Whether the variable `name` appears anywhere in the expression.
    /// - Complexity: O(n) in the expression's nodes (recursion as deep as the tree, which the
    ///   parser bounds).
    func mentions(variable name: String) -> Bool {
        switch self {
        case .null, .boolean, .number, .string, .capture, .regex: false
        case .variable(let variable): variable == name
        case .member(let base, _, _), .unary(_, let base, _): base.mentions(variable: name)
        case .index(let base, let key, _), .binary(_, let base, let key, _): base.mentions(variable: name) || key.mentions(variable: name)
        case .call(let callee, let arguments, _): callee.mentions(variable: name) || arguments.contains { $0.mentions(variable: name) }
        case .conditional(let condition, let then, let otherwise, _):
            condition.mentions(variable: name) || then.mentions(variable: name) || otherwise.mentions(variable: name)
        case .array(let elements, _): elements.contains { $0.mentions(variable: name) }
        }
    }
}
