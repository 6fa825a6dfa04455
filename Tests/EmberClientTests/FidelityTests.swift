import EmberClient
import EmberCore
import EmberInstance
import EmberServer
import EmberSync
import EmberTestSupport
import EmberWire
import Testing

/// Issue 19's divergences from Firebase, each asserted as Firebase's code and tests have it.
@Suite("Fidelity")
struct FidelityTests {
    @Test("onDisconnect cancel below a queued parent set drops the child and still writes the rest (OnDisconnect.ts cancel, SparseSnapshotTree.forget)")
    func cancelBelowAParentSet() throws {
        let (ember, _) = makeEmber(seed: 2)
        let alice = client(ember, "alice")
        let bob = client(ember, "bob")
        let log = EventLog()
        log.watch(ref(bob, "p"), [.value])
        try ember.flush()
        _ = log.take()
        try ref(alice, "p").onDisconnect().setValue(["a": 1, "b": 2])
        try ref(alice, "p/a").onDisconnect().cancel()
        try ember.flush()
        alice.goOffline()
        try ember.flush()
        #expect(ember.server.value(at: "p") == json(#"{"b":2}"#))
        #expect(log.take() == [#"value /p: {"b":2}"#])
    }

    @Test("forgetting below a queued leaf keeps it; below an object splits it; at or above drops it")
    func forgettingChanges() throws {
        let leaf = [WireChange("x", Node(.int(1)))]
        #expect(WireChange.forgetting("x/y", in: leaf) == leaf)
        #expect(WireChange.forgetting("x", in: leaf).isEmpty)
        let object = [WireChange(.root, json(#"{"a":{"c":1,"d":2},"b":3}"#)), WireChange("e", json("4"))]
        #expect(WireChange.forgetting("a/c", in: object) == [
            WireChange("a/d", json("2")), WireChange("b", json("3")), WireChange("e", json("4")),
        ])
        #expect(WireChange.forgetting(.root, in: object).isEmpty)
    }

    @Test("update with a key ending in /.priority sets that child's priority (validation.ts validateFirebaseMergePaths)")
    func updatePriorityKey() throws {
        let (ember, _) = makeEmber(seed: 3)
        let main = client(ember, "main")
        _ = ref(main, "x").observe(.value) { _, _ in }
        try ref(main, "x/a").setValue(1)
        try ember.flush()
        try ref(main, "x").updateChildValues(["a/.priority": 5, "b": 2])
        #expect(main.cachedValue(at: "x") == json(#"{"a":{".value":1,".priority":5},"b":2}"#), "applied locally at once")
        try ember.flush()
        #expect(ember.server.value(at: "x") == json(#"{"a":{".value":1,".priority":5},"b":2}"#))
        #expect(throws: EmberCore.DatabaseError.self) { try ref(main, "x").updateChildValues(["a/.priority": true]) }
        #expect(throws: EmberCore.DatabaseError.self) { try ref(main, "x").updateChildValues([".priority/a": 1]) }
    }

    @Test("setPriority needs no cached value: it writes path/.priority, a no-op where there is no value (syncPointSpec)")
    func setPriorityWithoutCache() throws {
        let (ember, _) = makeEmber(seed: 4)
        try ember.server.put(json(#"{"v":1}"#), at: "z", hash: nil)
        let main = client(ember, "main")
        var answers: [EmberCore.DatabaseError?] = []
        try ref(main, "z").setPriority(.number(3)) { answers.append($0) }
        try ref(main, "missing").setPriority(.string("p")) { answers.append($0) }
        try ember.flush()
        #expect(answers.count == 2 && answers.allSatisfy { $0 == nil })
        #expect(ember.server.value(at: "z") == json(#"{"v":1,".priority":3}"#))
        #expect(ember.server.value(at: "missing").isEmpty)
        // With the value cached, the priority shows at once, before the server has it.
        let log = EventLog()
        log.watch(ref(main, "z").query, [.value])
        try ember.flush()
        _ = log.take()
        try ref(main, "z").setPriority(nil)
        #expect(main.cachedValue(at: "z") == json(#"{"v":1}"#))
        try ember.flush()
        #expect(ember.server.value(at: "z") == json(#"{"v":1}"#))
    }

    @Test("ServerValue.TIMESTAMP is a valid priority, resolved by the server (validation.ts isValidPriority)")
    func timestampPriority() throws {
        let (ember, clock) = makeEmber(seed: 6)
        let main = client(ember, "main")
        _ = ref(main, "t").observe(.value) { _, _ in }
        try ember.flush()
        let timestamp = Priority.deferred(.timestamp)
        try ref(main, "t").setValue("v", priority: timestamp)
        // The client's view resolves it at once with its estimate of the server's time.
        #expect(main.cachedValue(at: "t")?.priority == .number(Double(clock.now())))
        try ember.advance(by: 5)
        try ember.flush()
        guard case .number(let stamped)? = ember.server.value(at: "t").priority else {
            Issue.record("no numeric priority: \(ember.server.value(at: "t").jsonString())")
            return
        }
        #expect(stamped >= Double(clock.now() - 5) && stamped <= Double(clock.now()))
        // Through JSON, and as setPriority's value.
        try ref(main, "u").setNode(json(#"{".value":1,".priority":{".sv":"timestamp"}}"#))
        try ref(main, "t").setPriority(timestamp)
        try ember.flush()
        if case .number? = ember.server.value(at: "u").priority {} else { Issue.record("u has no timestamp priority") }
        #expect(throws: EmberCore.DatabaseError.self) { try Node(jsonText: #"{".value":1,".priority":true}"#) }
    }
}
