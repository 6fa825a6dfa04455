import EmberCore

/// Whether the rules allow one operation, and why: every rule evaluated (where, and how it came
/// out), in order. `explain` prints it.
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
        public let outcome: RuleOutcome
    }

    public let operation: Operation
    public let allowed: Bool
    public let steps: [Step]
    /// Why, in one sentence: the rule that granted it, or what was missing.
    public let reason: String

    /// The first line of an explanation: `denied write /users/bob/name: REASON`.
    public var summary: String {
        let verb: String
        let path: Path
        switch operation {
        case .read(let at): (verb, path) = ("read", at)
        case .write(let at): (verb, path) = ("write", at)
        }
        return "\(allowed ? "allowed" : "denied") \(verb) \(path): \(reason)"
    }
}
