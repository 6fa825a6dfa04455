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
}
