import EmberCore
import EmberRules
import Testing

@testable import EmberServer

@Suite("LastRuleChecks")
struct LastRuleChecksTests {
    private func check(_ id: Int, refusing path: Path? = nil) -> RuleCheck {
        RuleCheck(
            connection: ConnectionID(id), ruleset: .open,
            request: RuleRequest(.write([path ?? "a"]), auth: nil, now: 0, root: .empty), refused: path)
    }

    @Test("each connection's last check is its own, whichever connection was checked last; a closed connection's are forgotten")
    func lastOfEach() {
        var checks = LastRuleChecks()
        let one = ConnectionID(1), two = ConnectionID(2), three = ConnectionID(3)
        #expect(checks.check(of: one) == nil)
        checks.keep(check(1, refusing: "x"), for: one)
        checks.keep(check(1, refusing: "y"), for: one)
        #expect(checks.check(of: one)?.refused == "y")
        checks.keep(check(2), for: two)
        #expect(checks.check(of: one)?.refused == "y", "kept when another connection is checked")
        #expect(checks.check(of: two)?.refused == nil)
        checks.keep(check(1, refusing: "z"), for: one)
        #expect(checks.check(of: one)?.refused == "z", "the newest, not the one set aside")
        checks.keep(check(3, refusing: "w"), for: three)
        #expect(checks.check(of: one)?.refused == "z")
        checks.forget(one)
        checks.forget(three)
        #expect(checks.check(of: one) == nil)
        #expect(checks.check(of: three) == nil)
        #expect(checks.check(of: two) != nil)
    }
}
