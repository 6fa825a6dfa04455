import EmberCore
import EmberRules
@testable import EmberServer
import EmberWire
import Testing

/// Every rules decision goes through the authorizer: what applies, what is refused, what is counted.
@Suite("ServerAuthorizer")
struct ServerAuthorizerTests {
    static let rules = """
        {"rules": {"open": {".read": true, ".write": true}, "closed": {".write": false}, "checked": {".validate": "newData.isNumber()", ".write": true}}}
        """

    @Test("the open rules and the administrator are not checked; anyone else is, and each check is counted")
    func appliesAndCounts() throws {
        let tree = ServerTree(store: nil, capacity: .max)
        var open = ServerAuthorizer(rules: .open)
        #expect(!open.applies(to: .none))
        guard case .unchecked = open.authorize(.read("a", RuleQuery(.default)), as: .none, by: ConnectionID(1), at: 0, over: tree) else {
            Issue.record("the open rules were checked")
            return
        }
        var authorizer = ServerAuthorizer(rules: try Ruleset(text: Self.rules))
        #expect(!authorizer.applies(to: .admin))
        #expect(authorizer.applies(to: .none))
        let allowed = authorizer.authorize(.read("open/x", RuleQuery(.default)), as: .none, by: ConnectionID(1), at: 0, over: tree)
        #expect(allowed.refusal == nil)
        #expect(allowed.check?.allowed == true)
        let refused = authorizer.authorize(
            .write(["closed/x"]), as: .none, by: ConnectionID(2), at: 0, writing: [RuleData.Write("closed/x", Node(.int(1)))], over: tree)
        #expect(refused.refusal == .permissionDenied(at: "closed/x"))
        #expect(refused.check?.connection == ConnectionID(2))
        let counts = authorizer.coverage.report(for: authorizer.rules).map(\.counts)
        #expect(counts.map(\.allowed).reduce(0, +) == 1, "one rule allowed one read")
        #expect(counts.map(\.denied).reduce(0, +) == 1, "one rule refused one write")
    }

    @Test("writes refused whatever is written, and imports and exports straight to the store, are decided here")
    func wholesaleDecisions() throws {
        let tree = ServerTree(store: nil, capacity: .max)
        let authorizer = ServerAuthorizer(rules: try Ruleset(text: Self.rules))
        #expect(authorizer.refusesEveryWrite(atOrBelow: "closed", as: .none, at: 0, over: tree))
        #expect(!authorizer.refusesEveryWrite(atOrBelow: "open", as: .none, at: 0, over: tree))
        #expect(!authorizer.refusesEveryWrite(atOrBelow: "closed", as: .admin, at: 0, over: tree))
        #expect(authorizer.grantsImport(at: "open", as: .none, at: 0, over: tree))
        #expect(!authorizer.grantsImport(at: "checked", as: .none, at: 0, over: tree), "a .validate checks each write")
        #expect(!authorizer.grantsImport(at: "closed", as: .none, at: 0, over: tree))
        #expect(authorizer.grantsImport(at: "closed", as: .admin, at: 0, over: tree))
        #expect(!authorizer.grantsExport(as: .none))
        #expect(authorizer.grantsExport(as: .admin))
    }
}
