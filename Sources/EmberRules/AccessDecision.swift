import EmberCore

/// Whether the rules allow one operation at one path, and why: every rule evaluated (where, and
/// how it came out), in order. `explain` and `rules trace` print it.
public struct AccessDecision: Sendable {
    /// What was checked.
    public enum Operation: Sendable, Hashable {
        case read(Path)
        case write(Path)
    }

    /// One rule evaluated at a location.
    public struct Step: Sendable {
        /// The location the rule guards (with the keys its wildcards matched).
        public let path: Path
        /// The rule's place in the rules tree (`/users/$uid`).
        public let rulePath: String
        /// The keys the wildcards on the way matched, by name with its `$`.
        public let captures: RuleCaptures
        public let outcome: RuleOutcome
    }

    /// How the decision was reached.
    enum Ending: Sendable {
        /// The `.write` or `.read` of this step granted it (and, for a write, every `.validate`
        /// held).
        case granted(step: Int)
        /// No `.read` or `.write` on the way was true.
        case noGrant
        /// The `.validate` of this step was not true.
        case invalid(step: Int)
    }

    public let operation: Operation
    public let steps: [Step]
    let ending: Ending

    /// Whether the operation is allowed.
    public var allowed: Bool {
        if case .granted = ending { return true }
        return false
    }

    /// The path checked.
    public var path: Path {
        switch operation {
        case .read(let path), .write(let path): path
        }
    }

    /// Why, in one sentence: the rule that granted it, or what was missing.
    public var reason: String {
        switch ending {
        case .granted(let index):
            let step = steps[index]
            return "\(step.rulePath) \(step.outcome.rule.kind.rawValue) \(Self.quote(step.outcome.rule.source)) is true"
        case .invalid(let index):
            let step = steps[index]
            return "\(step.rulePath) .validate \(Self.quote(step.outcome.rule.source)) at \(step.path) is \(step.outcome.verdict)"
        case .noGrant:
            let verb = verbName
            let denials = steps.map { "\($0.rulePath) .\(verb) \(Self.quote($0.outcome.rule.source)) is \($0.outcome.verdict)" }
            let grants = "no rule grants \(verb)"
            return denials.isEmpty ? "\(grants) on the way to \(path)" : denials.joined(separator: "; ") + "; \(grants)"
        }
    }

    private var verbName: String {
        switch operation {
        case .read: "read"
        case .write: "write"
        }
    }

    /// The first line of an explanation: `denied write /users/bob/name: REASON`.
    public var summary: String { summary(as: nil) }

    /// The first line of an explanation naming who asked:
    /// `denied write /users/bob/name as alice: REASON`.
    public func summary(as who: String?) -> String {
        "\(allowed ? "allowed" : "denied") \(verbName) \(path)\(who.map { " as \($0)" } ?? ""): \(reason)"
    }

    /// Every line of an explanation: the summary, then each rule evaluated (where, with the
    /// keys its wildcards matched) with its sub-expressions' values (when traced) and its
    /// verdict.
    public func explanation(as who: String? = nil) -> [String] {
        var lines = [summary(as: who)]
        for step in steps {
            let rule = step.outcome.rule
            let captures = step.captures.sorted.map { "\($0.name) = \(Self.quote($0.key))" }
            let place = ([step.rulePath] + captures).joined(separator: ", ")
            lines.append("  \(step.path) (\(place)) \(rule.kind.rawValue) \(Self.quote(rule.source)) → \(step.outcome.verdict)")
            for line in step.outcome.explanation { lines.append("      " + line) }
        }
        return lines
    }

    static func quote(_ source: String) -> String { JSONValue.string(source).serialized() }
}
