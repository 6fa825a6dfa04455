/// How often each rule of a document was evaluated, and how it came out: what `rules coverage`
/// reports, as the emulator's coverage report does (`/.inspect/coverage`), counted by outcome.
public struct RuleCoverage: Sendable {
    /// The counts of one rule.
    public struct Counts: Sendable, Hashable {
        public var allowed: Int
        public var denied: Int
        public var errors: Int

        public init(allowed: Int = 0, denied: Int = 0, errors: Int = 0) {
            self.allowed = allowed
            self.denied = denied
            self.errors = errors
        }

        public var evaluations: Int { allowed + denied + errors }
    }

    /// By ``Rule/id``.
    private var counts: [Counts]

    /// No evaluations yet of the `ruleCount` rules of a document.
    public init(ruleCount: Int) {
        counts = Array(repeating: Counts(), count: ruleCount)
    }

    /// Counts one evaluation of the rule numbered `id`: `true`, `false`, or `nil` for an error.
    /// - Complexity: O(1).
    mutating func count(_ id: Int, _ result: Bool?) {
        guard counts.indices.contains(id) else { return }
        switch result {
        case true?: counts[id].allowed += 1
        case false?: counts[id].denied += 1
        case nil: counts[id].errors += 1
        }
    }

    /// Counts every rule the decisions evaluated.
    /// - Complexity: O(rules evaluated).
    public mutating func record(_ decisions: [AccessDecision]) {
        for decision in decisions {
            for step in decision.steps {
                count(step.outcome.rule.id, try? step.outcome.result.get())
            }
        }
    }

    /// The counts of the rule numbered `id` (zero for a number not in the document).
    public subscript(id: Int) -> Counts { counts.indices.contains(id) ? counts[id] : Counts() }

    /// Each rule of `ruleset` with its counts, in document order.
    public func report(for ruleset: Ruleset) -> [(entry: Ruleset.Entry, counts: Counts)] {
        ruleset.entries.enumerated().map { ($0.element, self[$0.offset]) }
    }
}
