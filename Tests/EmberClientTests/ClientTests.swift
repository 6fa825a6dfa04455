import EmberClient
import EmberCore
import EmberRules
import EmberInstance
import EmberServer
import EmberSync
import EmberTestSupport
import Testing

@Suite("Client")
struct ClientTests {
    @Test("a write raises local events at once and reaches another client's listener")
    func writeFansOut() async throws {
        let (ember, _) = makeEmber(latency: 20)
        let alice = client(ember, "alice")
        let bob = client(ember, "bob")
        let aliceLog = EventLog()
        let bobLog = EventLog()
        aliceLog.watch(ref(alice, "scores"), [.childAdded, .value])
        bobLog.watch(ref(bob, "scores"), [.childAdded, .value])
        try ember.flush()
        #expect(aliceLog.take() == ["value /scores: null"])
        #expect(bobLog.take() == ["value /scores: null"])

        var answered = false
        try ref(alice, "scores/stego").setValue(5) { error in
            #expect(error == nil)
            answered = true
        }
        // Optimistic: alice sees her write before anything travels; bob has seen nothing.
        #expect(aliceLog.take() == ["child_added stego: 5", #"value /scores: {"stego":5}"#])
        #expect(bobLog.take() == [])
        #expect(alice.pendingWriteCount == 1)
        try ember.flush()
        #expect(answered)
        #expect(alice.pendingWriteCount == 0)
        // The server's echo and the ack raise nothing more for alice.
        #expect(aliceLog.take() == [])
        #expect(bobLog.take() == ["child_added stego: 5", #"value /scores: {"stego":5}"#])
        #expect(ember.server.value(at: "scores") == json(#"{"stego":5}"#))
    }

    @Test("update writes several deep paths atomically; bad input is refused before anything changes")
    func updateAndValidation() async throws {
        let (ember, _) = makeEmber()
        let alice = client(ember, "alice")
        let log = EventLog()
        log.watch(ref(alice, "notes"), [.childAdded, .childChanged])
        try ember.flush()
        try await ref(alice, "").update(["notes/n1": ["title": "hi"], "folders/f/count": 1])
        #expect(log.take() == [#"child_added n1: {"title":"hi"}"#])
        #expect(ember.server.value(at: .root) == json(#"{"folders":{"f":{"count":1}},"notes":{"n1":{"title":"hi"}}}"#))

        #expect(throws: DatabaseError.self) { try ref(alice, "notes").updateChildValues(["a": 1, "a/b": 2]) }
        #expect(throws: DatabaseError.self) { try ref(alice, "notes").setValue(["bad.key": 1]) }
        #expect(throws: DatabaseError.self) { try ref(alice, ".info/connected").setValue(true) }
        #expect(throws: DatabaseError.self) { try alice.reference("a/b[c]") }
        #expect(alice.pendingWriteCount == 0)
        #expect(log.take() == [])
    }

    @Test("a write the server refuses is reverted with events on the writer and never reaches others")
    func rejectedWrite() async throws {
        let (ember, _) = makeEmber()
        try ember.server.put(json(#"{"x":1}"#), at: "locked", hash: nil)
        try ember.server.setRules(Ruleset(text: #"{"rules": {".read": true, "$other": {".write": true}, "locked": {".write": false}}}"#))
        let alice = client(ember, "alice")
        let bob = client(ember, "bob")
        let aliceLog = EventLog()
        let bobLog = EventLog()
        aliceLog.watch(ref(alice, "locked"), [.childAdded, .childChanged, .childRemoved, .value])
        bobLog.watch(ref(bob, "locked"), [.childAdded, .childChanged, .childRemoved, .value])
        try ember.flush()
        #expect(aliceLog.take() == ["child_added x: 1", #"value /locked: {"x":1}"#])
        #expect(bobLog.take() == ["child_added x: 1", #"value /locked: {"x":1}"#])

        var answer: DatabaseError?
        try ref(alice, "locked/x").setValue(2) { answer = $0 }
        try ref(alice, "locked/y").setValue(3)
        #expect(aliceLog.take() == [
            "child_changed x: 2", #"value /locked: {"x":2}"#, "child_added y after x: 3", #"value /locked: {"x":2,"y":3}"#,
        ])
        try ember.flush()
        #expect(answer?.code == "permission_denied")
        #expect(answer?.path == "locked/x")
        // Each refusal undoes its write, with the events that show it.
        #expect(aliceLog.take() == [
            "child_changed x: 1", #"value /locked: {"x":1,"y":3}"#, "child_removed y: 3", #"value /locked: {"x":1}"#,
        ])
        #expect(bobLog.take() == [])
        #expect(ember.server.value(at: "locked") == json(#"{"x":1}"#))

        // The async form throws the server's error.
        await #expect(throws: DatabaseError.permissionDenied(at: "locked/z")) { try await ref(alice, "locked/z").set(1) }
    }

    @Test("the README's example runs as written, on the system clock")
    func readmeExample() async throws {
        var seen: [String] = []
        let ember = Ember()  // a server and its clients, in memory
        let alice = try ember.client(named: "alice")
        let bob = try ember.client(named: "bob")
        try bob.reference("scores").observe(.childAdded) { snapshot, previous in
            seen.append("bob sees \(snapshot.key!) \(snapshot.value.serialized()) after \(previous ?? "-")")
        }
        try await alice.reference("scores/stego").set(5)  // local events at once; returns on the ack
        let result = try await alice.reference("counter").transaction { current in
            guard case .int(let n)? = current.leafValue else { return .commit(Node(.int(1))) }
            return .commit(Node(.int(n + 1)))
        }
        try ember.flush()
        #expect(result.committed)
        #expect(result.snapshot.value == 1)
        #expect(seen == ["bob sees stego 5 after -"])
    }
}
