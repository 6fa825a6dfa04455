import EmberClient
import Foundation
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

    @Test("a get made offline with nothing cached waits for the connection (\"blocks get requests until the database is online\")")
    func getWaitsForTheConnection() throws {
        let (ember, _) = makeEmber(seed: 8)
        try ember.server.put(json(#"{"rex":5}"#), at: "dinos", hash: nil)
        let main = client(ember, "main")
        try ember.flush()
        main.goOffline()
        try ember.flush()
        var result: Result<DataSnapshot, EmberCore.DatabaseError>?
        ref(main, "dinos").query.getData { result = $0 }
        try ember.advance(by: 1_000)
        #expect(result == nil, "still waiting")
        main.goOnline()
        try ember.run { result != nil }
        #expect(try result?.get().value == json(#"{"rex":5}"#).jsonValue())
        // Offline for longer than the SDKs' GET_CONNECT_TIMEOUT (3 s): "Client is offline".
        main.goOffline()
        try ember.flush()
        var late: Result<DataSnapshot, EmberCore.DatabaseError>?
        ref(main, "elsewhere").query.getData { late = $0 }
        try ember.run { late != nil }
        if case .failure(let error)? = late { #expect(error.code == "offline") } else { Issue.record("no failure") }
    }

    @Test("a get's connectTimeout sets how long it waits for the connection, in virtual time")
    func getConnectTimeoutIsHonoured() throws {
        let (ember, _) = makeEmber(seed: 8)
        try ember.server.put(json(#"{"rex":5}"#), at: "dinos", hash: nil)
        let main = client(ember, "main")
        try ember.flush()
        main.goOffline()
        try ember.flush()
        // A shorter limit: the failure comes at exactly 500 ms.
        let start = ember.clock.now()
        var short: Result<DataSnapshot, EmberCore.DatabaseError>?
        ref(main, "dinos").query.getData(connectTimeout: 500) { short = $0 }
        try ember.advance(by: 499)
        #expect(short == nil, "still waiting at 499 ms")
        try ember.run { short != nil }
        #expect(ember.clock.now() - start == 500)
        if case .failure(let error)? = short { #expect(error.code == "offline") } else { Issue.record("no failure: \(String(describing: short))") }
        // No wait at all.
        var none: Result<DataSnapshot, EmberCore.DatabaseError>?
        let before = ember.clock.now()
        ref(main, "dinos").query.getData(connectTimeout: 0) { none = $0 }
        try ember.run { none != nil }
        #expect(ember.clock.now() == before)
        if case .failure(let error)? = none { #expect(error.code == "offline") } else { Issue.record("no failure") }
        // A longer limit outlasts the default 3 s, and the connection answers it.
        var long: Result<DataSnapshot, EmberCore.DatabaseError>?
        ref(main, "dinos").query.getData(connectTimeout: 10_000) { long = $0 }
        try ember.advance(by: Query.defaultGetConnectTimeout + 1_000)
        #expect(long == nil, "still waiting after 4 s")
        main.goOnline()
        try ember.run { long != nil }
        #expect(try long?.get().value == json(#"{"rex":5}"#).jsonValue())
    }

    @Test("get offline after a restart answers from what the store can vouch for, as a listener does")
    func getOfflineFromTheStore() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let ember = try openEmber(directory)
            try ember.server.put(json(#"{"rex":5,"stego":4}"#), at: "dinos", hash: nil)
            let main = client(ember, "main")
            let handle = ref(main, "dinos").observe(.value) { _, _ in }
            try ember.flush()
            main.removeObserver(handle)
            try ember.flush()
            try ember.close()
        }
        let ember = try openEmber(directory)
        let main = client(ember, "main", startOffline: true)
        var result: Result<DataSnapshot, EmberCore.DatabaseError>?
        ref(main, "dinos").query.getData { result = $0 }
        try ember.flush()
        #expect(try result?.get().value == json(#"{"rex":5,"stego":4}"#).jsonValue(), "answered at once from the store")
        var child: Result<DataSnapshot, EmberCore.DatabaseError>?
        ref(main, "dinos/rex").query.getData { child = $0 }
        try ember.flush()
        #expect(try child?.get().value == .int(5))
    }

    @Test("a listener for child_moved alone gets exactly the moves a listener for every kind gets")
    func childMovedAlone() throws {
        let (ember, _) = makeEmber(seed: 9)
        try ember.server.put(json(#"{"a":1,"b":2,"c":3}"#), at: "s", hash: nil)
        let main = client(ember, "main")
        let bob = client(ember, "bob")
        let alone = EventLog()
        let every = EventLog()
        alone.watch(try ref(main, "s").query.orderByValue(), [.childMoved])
        every.watch(try ref(bob, "s").query.orderByValue(), [.childAdded, .childChanged, .childRemoved, .childMoved, .value])
        try ember.flush()
        _ = every.take()
        #expect(alone.take().isEmpty)
        // Written by someone else, so that both clients see the same changes in the same order.
        try ember.server.put(json("10"), at: "s/a", hash: nil)
        try ember.flush()
        try ember.server.put(json("20"), at: "s/b", hash: nil)
        try ember.flush()
        let moves = every.take().filter { $0.hasPrefix("child_moved") }
        #expect(moves.count == 2)
        #expect(alone.take() == moves)
    }
}
