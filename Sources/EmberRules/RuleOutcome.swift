/// How one evaluation of a rule came out: true, false, or an error (which counts as false), and,
/// when traced, the value of each sub-expression in the order evaluated.
public struct RuleOutcome: Sendable {
    public let rule: Rule
    public let result: Result<Bool, RuleRuntimeError>
    /// Each compound sub-expression's source text and value, in evaluation order.
    let steps: [(range: Range<Int>, value: RuleValue)]

    /// Whether the rule allows the operation.
    public var allowed: Bool { (try? result.get()) ?? false }

    /// The sub-expressions (their source text) and their values, in evaluation order.
    public var trace: [(expression: String, value: String)] {
        let characters = Array(rule.source)
        return steps.map { step in
            let upper = min(step.range.upperBound, characters.count)
            let lower = min(step.range.lowerBound, upper)
            return (String(characters[lower..<upper]), step.value.description)
        }
    }

    /// The sub-expressions and their values, as `source → value` lines.
    public var explanation: [String] { trace.map { $0.expression + " → " + $0.value } }

    /// The verdict in words: `true`, `false`, or `error: REASON (counts as false)`.
    public var verdict: String {
        switch result {
        case .success(let allowed): allowed ? "true" : "false"
        case .failure(let error): "error: \(error.reason) (counts as false)"
        }
    }
}
