import EmberCore
import EmberRules
@testable import EmberServer
import EmberWire
import Testing

/// REST's typed client of the server: it signs in first, numbers its own requests and answers in types.
@Suite("ServerClient")
struct ServerClientTests {
    static let rules = """
        {"rules": {"users": {"$uid": {".read": "auth.uid == $uid", ".write": "auth.uid == $uid"}}}}
        """

    /// Runs what the client leaves for later (the engine's post) at once, after the current call.
    final class Later {
        var queue: [() -> Void] = []
        func post(_ work: @escaping () -> Void) { queue.append(work) }
        func run() {
            while !queue.isEmpty { queue.removeFirst()() }
        }
    }

    @Test("a signed-in client's writes and reads are answered in types; several requests are told apart")
    func typedAnswers() throws {
        let clock = ManualClock()
        let server = Server(clock: clock, rules: try Ruleset(text: Self.rules))
        let later = Later()
        let token = try AuthToken.unsigned(claims: .object([("uid", .string("alice"))]), issuedAt: clock.now(), lifetime: 3_600_000)
        let client = ServerClient(server: server, signingIn: .user(token: token.text), later: later.post)
        var statuses: [AckStatus] = []
        var reads: [Result<Node, DatabaseError>] = []
        client.put(Node(.string("Alice")), at: "users/alice/name", then: { statuses.append($0) })
        client.merge([WireChange("age", Node(.int(30)))], at: "users/alice", then: { statuses.append($0) })
        client.put(Node(.string("Mallory")), at: "users/bob/name", then: { statuses.append($0) })
        client.get(.default(at: "users/alice"), then: { reads.append($0) })
        later.run()
        #expect(statuses == [.ok(), .ok(), .failed(.permissionDenied(at: "users/bob/name"))])
        #expect(reads.count == 1)
        #expect(try reads.first?.get() == Node(json: .object([("age", .int(30)), ("name", .string("Alice"))])))
        client.close()
        #expect(server.connectionIDs.isEmpty)
    }

    @Test("a refused sign-in answers every request with its refusal, and none reaches the server as someone else")
    func refusedSignIn() throws {
        let server = Server(clock: ManualClock(), rules: .open)
        let later = Later()
        let client = ServerClient(server: server, signingIn: .user(token: "not a token"), later: later.post)
        var statuses: [AckStatus] = []
        var reads: [Result<Node, DatabaseError>] = []
        client.put(Node(.int(1)), at: "x", then: { statuses.append($0) })
        later.run()
        client.get(.default(at: "x"), then: { reads.append($0) })
        #expect(statuses.count == 1)
        #expect(statuses.first.map { if case .failed(let error) = $0 { error.code == ErrorCode.invalidToken } else { false } } == true)
        #expect(reads.count == 1)
        #expect(server.value(at: "x").isEmpty, "the write did not land")
        client.close()
    }

    @Test("a listen hears its answer and its updates typed; closing ends it on the server")
    func listens() throws {
        let server = Server(clock: ManualClock(), rules: .open)
        let later = Later()
        let client = ServerClient(server: server, signingIn: nil, later: later.post)
        var events: [String] = []
        client.listen(.default(at: "room")) { event in
            switch event {
            case .answered(let status): events.append("answered \(status.isOK)")
            case .data(let path, let node): events.append("data \(path) \(node.jsonString())")
            case .merge(let path, let changes): events.append("merge \(path) \(changes.count)")
            case .revoked(let error): events.append("revoked \(error.code)")
            case .signedOut(let error): events.append("signed out \(error.code)")
            }
        }
        try server.put(Node(.string("hi")), at: "room/topic", hash: nil)
        #expect(events == ["answered true", #"data /room/topic "hi""#])
        #expect(server.listens(of: client.connection).count == 1)
        client.close()
        #expect(server.connectionIDs.isEmpty)
    }
}
