import EmberCore
import EmberRules

/// One rules check the server made: for whom, under which rules, on what, and the outcome.
/// The server's check builds no explanation; ``decisions`` and ``traced()`` evaluate the kept
/// request again (over the data the check read, not today's) for `explain` and `rules trace`.
/// A class: each connection keeps its last check, and every guarded operation replaces it.
public final class RuleCheck: Sendable {
    /// The connection whose operation was checked.
    public let connection: ConnectionID
    /// The rules in force then.
    public let ruleset: Ruleset
    /// The operation, holding only the data its rules read.
    public let request: RuleRequest
    /// The path refused, or `nil` when the operation was allowed.
    public let refused: Path?

    public init(connection: ConnectionID, ruleset: Ruleset, request: RuleRequest, refused: Path?) {
        self.connection = connection
        self.ruleset = ruleset
        self.request = request
        self.refused = refused
    }

    /// Whether the operation was allowed.
    public var allowed: Bool { refused == nil }

    /// Whom the check was for, as `explain` says it: the uid, `nobody (auth == null)`, or the
    /// auth object.
    public var who: String {
        if case .string(let uid)? = request.auth?["uid"] { return uid }
        return request.auth.map { $0.serialized() } ?? "nobody (auth == null)"
    }

    /// The decisions: one for a read, one per path checked for a write (ending at the first
    /// denial), evaluated again from the kept request.
    public var decisions: [AccessDecision] { ruleset.decide(request) }

    /// The same decisions with each rule's sub-expressions traced.
    public func traced() -> [AccessDecision] { ruleset.decide(request, tracing: true) }
}
