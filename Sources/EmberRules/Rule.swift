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
    /// What a rule is, made once: a class, so that a copy of a rule (taken from the rules
    /// tree on every check) costs one reference count, not one per field.
    private final class Compiled: Sendable {
        let source: String
        let kind: RuleKind
        let expression: RuleExpression
        /// The expression compiled (``RuleCompiler``): what is evaluated.
        let code: RuleCode
        /// The boolean of a rule that is one (`".read": true`): no code runs for it.
        let constant: Bool?
        /// Whether the expression reads `newData`.
        let readsNewData: Bool

        init(source: String, kind: RuleKind, expression: RuleExpression) {
            self.source = source
            self.kind = kind
            self.expression = expression
            code = RuleCompiler.compile(expression)
            if case .boolean(let value) = expression { constant = value } else { constant = nil }
            readsNewData = expression.mentions(variable: "newData")
        }
    }

    private let compiled: Compiled
    /// The expression as written (`"true"` for a boolean `true`).
    public var source: String { compiled.source }
    public var kind: RuleKind { compiled.kind }
    var expression: RuleExpression { compiled.expression }
    /// Its number in its rules document, in document order (what `rules coverage` counts by);
    /// -1 for a rule outside a document.
    public internal(set) var id = -1

    /// Compiles and checks `source`.
    /// - Parameter captures: the wildcards above the rule, with their `$`.
    /// - Throws: ``RuleSyntaxError`` naming the problem and where.
    public init(_ source: String, kind: RuleKind, captures: Set<String> = []) throws(RuleSyntaxError) {
        let expression = try RuleParser.parse(source)
        try RuleChecker(variables: kind.variables, captures: captures).check(expression)
        compiled = Compiled(source: source, kind: kind, expression: expression)
    }

    /// A rule that is a boolean (`".read": true`).
    public init(constant: Bool, kind: RuleKind) {
        compiled = Compiled(source: constant ? "true" : "false", kind: kind, expression: .boolean(constant))
    }

    /// Two rules are equal when they are the same expression of the same kind, numbered alike.
    public static func == (lhs: Rule, rhs: Rule) -> Bool {
        lhs.id == rhs.id && (lhs.compiled === rhs.compiled || (lhs.source == rhs.source && lhs.kind == rhs.kind && lhs.expression == rhs.expression))
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(source)
        hasher.combine(kind)
        hasher.combine(id)
    }

    /// Evaluates the rule: true allows; false, or an error, does not.
    /// - Parameter tracing: record each sub-expression's value (for `explain`).
    public func evaluate(_ context: RuleContext, tracing: Bool = false) -> RuleOutcome {
        var reads = RuleReads()
        return evaluate(context, tracing: tracing, reads: &reads)
    }

    /// Whether the rule holds where `evaluator` stands (an error counts as false), with nothing
    /// traced: what a check that builds no decision evaluates, with one evaluator for all its
    /// rules (``RuleEvaluator/move(to:captures:newData:)`` between them). The outcome is
    /// counted in `coverage`; the evaluator notes the locations read.
    func holds(in evaluator: RuleEvaluator, coverage: inout RuleCoverage) -> Bool {
        if let constant = compiled.constant {
            coverage.count(id, constant)
            return constant
        }
        let allowed = try? evaluator.verdict(compiled.code)
        coverage.count(id, allowed)
        return allowed ?? false
    }

    /// Whether the rule is the constant `false` (it never holds, whoever asks and whatever the
    /// data).
    var isAlwaysFalse: Bool { compiled.constant == false }

    /// Whether the rule reads `newData` (its verdict may depend on what is written).
    var readsNewData: Bool { compiled.readsNewData }

    /// Evaluates the rule, adding the locations whose data it read to `reads`.
    func evaluate(_ context: RuleContext, tracing: Bool, reads: inout RuleReads) -> RuleOutcome {
        let evaluator = RuleEvaluator(context: context, tracing: tracing, reads: reads)
        reads = RuleReads()
        defer { reads = evaluator.reads }
        do {
            let allowed = try evaluator.verdict(compiled.code)
            return RuleOutcome(rule: self, result: .success(allowed), steps: evaluator.trace ?? [])
        } catch {
            return RuleOutcome(rule: self, result: .failure(error), steps: evaluator.trace ?? [])
        }
    }
}
