import EmberCore
import EmberRules

/// One rules check the server made: for whom, under which rules, on what, and the outcome.
/// ``traced()`` evaluates it again with every sub-expression recorded, for `explain`.
public struct RuleCheck: Sendable {
    /// The connection whose operation was checked.
    public let connection: ConnectionID
    /// The rules in force then.
    public let ruleset: Ruleset
    public let request: RuleRequest
    /// One decision for a read, one per path checked for a write (ending at the first denial).
    public let decisions: [AccessDecision]

    /// Whether the operation was allowed.
    public var allowed: Bool { decisions.allSatisfy(\.allowed) }

    /// The same decisions with each rule's sub-expressions traced (the data and rules of the
    /// time, not today's).
    public func traced() -> [AccessDecision] { ruleset.decide(request, tracing: true) }
}
