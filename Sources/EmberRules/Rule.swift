import EmberCore

/// One compiled rule: `.read`, `.write` or `.validate` at a location, from its expression
/// string (or a boolean). Compiled and checked once, when the rules are loaded; evaluated on
/// every operation it guards.
///
/// ```swift
/// let rule = try Rule("auth != null && $uid === auth.uid", kind: .write, captures: ["$uid"])
/// rule.evaluate(context).allowed   // true for alice writing under /users/alice
/// ```
public struct Rule: Sendable, Hashable {
    /// The expression as written (`"true"` for a boolean `true`).
    public let source: String
    public let kind: RuleKind
    let expression: RuleExpression
    /// Its number in its rules document, in document order (what `rules coverage` counts by);
    /// -1 for a rule outside a document.
    public internal(set) var id = -1

    /// Compiles and checks `source`.
    /// - Parameter captures: the wildcards above the rule, with their `$`.
    /// - Throws: ``RuleSyntaxError`` naming the problem and where.
    public init(_ source: String, kind: RuleKind, captures: Set<String> = []) throws(RuleSyntaxError) {
        let expression = try RuleParser.parse(source)
        try RuleChecker(variables: kind.variables, captures: captures).check(expression)
        self.source = source
        self.kind = kind
        self.expression = expression
    }

    /// A rule that is a boolean (`".read": true`).
    public init(constant: Bool, kind: RuleKind) {
        source = constant ? "true" : "false"
        self.kind = kind
        expression = .boolean(constant)
    }

    /// Evaluates the rule: true allows; false, or an error, does not.
    /// - Parameter tracing: record each sub-expression's value (for `explain`).
    public func evaluate(_ context: RuleContext, tracing: Bool = false) -> RuleOutcome {
        var reads = RuleReads()
        return evaluate(context, tracing: tracing, reads: &reads)
    }

    /// Whether the rule holds at `path` (an error counts as false), with nothing traced: what a
    /// check that builds no decision evaluates. The outcome is counted in `coverage`, the
    /// locations read are added to `reads`.
    func holds(
        _ context: RuleContext, at path: Path, captures: RuleCaptures, reads: inout RuleReads, coverage: inout RuleCoverage
    ) -> Bool {
        if case .boolean(let constant) = expression {
            coverage.count(id, constant)
            return constant
        }
        var evaluator = RuleEvaluator(context: context, path: path, captures: captures, tracing: false, reads: reads)
        reads = RuleReads()
        defer { reads = evaluator.reads }
        let allowed = try? evaluator.verdict(expression)
        coverage.count(id, allowed)
        return allowed ?? false
    }

    /// Evaluates the rule, adding the locations whose data it read to `reads`.
    func evaluate(_ context: RuleContext, tracing: Bool, reads: inout RuleReads) -> RuleOutcome {
        var evaluator = RuleEvaluator(context: context, tracing: tracing, reads: reads)
        reads = RuleReads()
        defer { reads = evaluator.reads }
        do {
            let allowed = try evaluator.verdict(expression)
            return RuleOutcome(rule: self, result: .success(allowed), steps: evaluator.trace ?? [])
        } catch {
            return RuleOutcome(rule: self, result: .failure(error), steps: evaluator.trace ?? [])
        }
    }
}
