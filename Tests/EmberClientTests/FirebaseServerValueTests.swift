import EmberClient
import EmberCore
import EmberInstance
import EmberServer
import EmberSync
import EmberTestSupport
import Testing

/// Ports of firebase-js-sdk `packages/database-compat/test/servervalues.test.ts`, each test named
/// after its `it(...)`.
@Suite("Firebase servervalues.test.ts")
struct FirebaseServerValueTests {
    // servervalues.test.ts: 'resolves timestamps locally'
    @Test("resolves timestamps locally")
    func resolvesTimestampsLocally() async throws {
        let (ember, clock) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        let start = clock.now()
        var values: [Int64] = []
        var nonNumbers: [JSONValue] = []
        let handle = node.observe(.value) { snapshot, _ in
            if let value = number(snapshot.node) { values.append(value) } else { nonNumbers.append(snapshot.value) }
        }
        try await node.set(.serverTimestamp)
        node.database.removeObserver(handle)
        // By the time the write is acknowledged there is a local and a server version.
        #expect(nonNumbers.isEmpty)
        #expect(values.count == 2)
        for serverTime in values { #expect(abs(serverTime - start) < 1_000) }
    }

    // servervalues.test.ts: 'handles increments without listeners'
    @Test("handles increments without listeners")
    func incrementsWithoutListeners() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try await node.set(.increment(1))
        #expect(ember.server.value(at: "node") == Node(.int(1)))
    }

    // servervalues.test.ts: 'handles increments' › 'offline' and › 'online' (the writes are not
    // awaited in either mode: every event is local).
    @Test("handles increments", arguments: ["offline", "online"])
    func handlesIncrements(mode: String) throws {
        let (ember, _) = makeEmber(latency: 5)
        let database = try connectedClient(ember, "main")
        let node = ref(database, "node")
        if mode == "offline" { database.goOffline() }
        let addOne = JSONValue.increment(1)
        var values: [JSONValue] = []
        let handle = node.observe(.value) { snapshot, _ in values.append(snapshot.value) }
        // null -> increment(x) = x
        try node.setValue(addOne)
        // x -> increment(y) = x + y
        try node.setValue(5)
        try node.setValue(addOne)
        // str -> increment(x) = x
        try node.setValue("hello")
        try node.setValue(addOne)
        // obj -> increment(x) = x
        try node.setValue(["hello": "world"])
        try node.setValue(addOne)
        database.removeObserver(handle)
        #expect(values == [1, 5, 6, "hello", 1, ["hello": "world"], 1])
        database.goOnline()
        try ember.flush()
    }

    // servervalues.test.ts: 'handles sparse updates'
    @Test("handles sparse updates")
    func sparseUpdates() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var value: JSONValue = .null
        var events = 0
        let handle = node.observe(.value) { snapshot, _ in
            value = snapshot.value
            events += 1
        }
        try await node.update(["child/increment": .increment(1), "literal": 5])
        #expect(value == ["child": ["increment": 1], "literal": 5])
        try await node.update(["child/increment": .increment(41)])
        #expect(value == ["child": ["increment": 42], "literal": 5])
        node.database.removeObserver(handle)
        #expect(events == 2)
    }

    // servervalues.test.ts: 'handles races'
    @Test("handles races")
    func races() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        let racers = 100
        var answered = 0
        for _ in 0..<racers { try node.setValue(.increment(1)) { _ in answered += 1 } }
        try await ember.run { answered == racers }
        let (snapshot, _) = try await node.once(.value)
        #expect(snapshot.value == .int(Int64(racers)))
    }
}
