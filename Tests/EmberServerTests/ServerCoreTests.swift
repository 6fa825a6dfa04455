import EmberCore
import EmberRules
@testable import EmberServer
import EmberWire
import Testing

/// The core decides and returns actions; it sends nothing and writes nothing to a store itself.
@Suite("ServerCore")
struct ServerCoreTests {
    static let rules = """
        {"rules": {"public": {".read": true, ".write": true}, "private": {".read": "auth != null", ".write": false}}}
        """

    /// A core with `rules` whose checks are reported as actions (as while `rules trace` runs).
    private func core(rules: String = ServerCoreTests.rules) throws -> ServerCore {
        var core = ServerCore(tree: ServerTree(store: nil, capacity: .max), clock: ManualClock(), rules: try Ruleset(text: rules))
        core.reportsRuleChecks = true
        return core
    }

    /// The actions, rendered (messages as the server's tests render them).
    private static func render(_ actions: [ServerAction]) -> [String] {
        actions.map { action in
            switch action {
            case .update(let id, let message): "update \(id) \(RawClient.render(message))"
            case .send(let id, let message): "send \(id) \(RawClient.render(message))"
            case .writeAnswer(let id, let requestID, .ok, _): "write answer \(id) \(requestID) ok"
            case .writeAnswer(let id, let requestID, .failed(let error), _): "write answer \(id) \(requestID) \(error.code)"
            case .getAnswer(let id, let requestID, _, .data(let node)): "get answer \(id) \(requestID) \(node.jsonString())"
            case .getAnswer(let id, let requestID, _, .failed(let error)): "get answer \(id) \(requestID) \(error.code)"
            case .changed(let path): "changed \(path)"
            case .recordLedger: "record ledger"
            case .recordAnswer(let key, let failure): "record answer \(key) \(failure?.code ?? "ok")"
            case .ruleChecked(let check): "rule checked \(check.connection) \(check.allowed ? "allowed" : "refused")"
            }
        }
    }

    @Test("a write returns its change, the listeners' updates and its answer, in that order, and sends nothing")
    func writeReturnsActions() throws {
        var core = try core()
        var actions: [ServerAction] = []
        let listener = core.openConnection(into: &actions)
        let writer = core.openConnection(into: &actions)
        #expect(Self.render(actions) == ["send connection 1 handshake 1700000000000", "send connection 2 handshake 1700000000000"])
        actions.removeAll()
        core.handle(.listen(requestID: 1, query: .default(at: "public"), tag: nil, hash: ""), from: listener, into: &actions)
        #expect(Self.render(actions) == ["rule checked connection 1 allowed", "send connection 1 ack 1 ok"])
        guard case .send(_, .ack(_, .ok(let payload))) = actions.last else { Issue.record("no answer"); return }
        #expect(payload == .listening, "a listen's ok carries {} on the wire")
        actions.removeAll()
        core.handle(.put(requestID: 7, path: "public/a", data: Node(.int(1)), hash: nil, writeKey: "old-style-key"), from: writer, into: &actions)
        #expect(
            Self.render(actions) == [
                "rule checked connection 2 allowed", "changed /public/a", "update connection 1 data public/a 1", "record answer old-style-key ok",
                "write answer connection 2 7 ok",
            ])
        #expect(core.tree.node(at: "public/a") == Node(.int(1)))
    }

    @Test("a refused write returns the check that refused it (when checks are reported) and its answer; the connection keeps the check; nothing changes")
    func refusedWrite() throws {
        var core = try core()
        core.reportsRuleChecks = false
        var actions: [ServerAction] = []
        let id = core.openConnection(into: &actions)
        actions.removeAll()
        core.handle(.put(requestID: 3, path: "private/x", data: Node(.int(1)), hash: nil, writeKey: nil), from: id, into: &actions)
        #expect(Self.render(actions) == ["write answer connection 1 3 permission_denied"], "no one observes the checks")
        #expect(core.lastRuleCheck(of: id)?.allowed == false)
        #expect(core.lastRuleCheck(of: id)?.connection == id)
        actions.removeAll()
        core.reportsRuleChecks = true
        core.handle(.put(requestID: 4, path: "private/y", data: Node(.int(1)), hash: nil, writeKey: nil), from: id, into: &actions)
        #expect(Self.render(actions) == ["rule checked connection 1 refused", "write answer connection 1 4 permission_denied"])
        #expect(core.lastRuleCheck(of: id)?.refused == "private/y")
        #expect(core.tree.node(at: "private/x").isEmpty)
        #expect(core.tree.node(at: "private/y").isEmpty)
    }

    @Test("a sign-in's ok carries the user and the token's expiry; an administrator's the override")
    func signInPayloads() throws {
        let clock = ManualClock()
        var core = ServerCore(tree: ServerTree(store: nil, capacity: .max), clock: clock, rules: try Ruleset(text: Self.rules))
        var actions: [ServerAction] = []
        let id = core.openConnection(into: &actions)
        actions.removeAll()
        let token = try AuthToken.unsigned(claims: .object([("uid", .string("alice"))]), issuedAt: clock.now(), lifetime: 3_600_000)
        core.handle(.auth(requestID: 1, token: token.text), from: id, into: &actions)
        guard case .send(_, .ack(1, .ok(.signedIn(let auth, let expires)))) = actions.last else {
            Issue.record("not signed in: \(Self.render(actions))")
            return
        }
        #expect(auth?["uid"] == .string("alice"))
        #expect(expires == token.expiresAt / 1000)
        actions.removeAll()
        core.handle(.adminAuth(requestID: 2, credential: "owner", override: .variable(.object([("uid", .string("bob"))]))), from: id, into: &actions)
        guard case .send(_, .ack(2, .ok(.signedIn(let variable, nil)))) = actions.last else {
            Issue.record("not signed in: \(Self.render(actions))")
            return
        }
        #expect(variable == .object([("uid", .string("bob"))]))
        #expect(core.connections[id]?.auth == .variable(.object([("uid", .string("bob"))])))
    }

    @Test("a connection's end runs its onDisconnect operations as returned writes, checked again")
    func connectionEndRunsOnDisconnect() throws {
        var core = try core()
        var actions: [ServerAction] = []
        let id = core.openConnection(into: &actions)
        core.handle(.onDisconnectPut(requestID: 1, path: "public/online", data: Node(.bool(false))), from: id, into: &actions)
        actions.removeAll()
        core.connectionEnded(id, into: &actions)
        #expect(Self.render(actions) == ["rule checked connection 1 allowed", "changed /public/online"])
        #expect(core.tree.node(at: "public/online") == Node(.bool(false)))
        #expect(core.connections[id] == nil)
    }
}
