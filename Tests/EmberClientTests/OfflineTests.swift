import EmberClient
import EmberCore
import EmberInstance
import EmberServer
import EmberSync
import EmberTestSupport
import Testing

@Suite("Offline")
struct OfflineTests {
    @Test("offline writes on two clients converge after reconnection, with the right events")
    func twoClientsConverge() throws {
        let (ember, _) = makeEmber(latency: 5)
        try ember.server.put(json(#"{"a":1}"#), at: "list", hash: nil)
        let alice = client(ember, "alice")
        let bob = client(ember, "bob")
        let aliceLog = EventLog()
        let bobLog = EventLog()
        let all: Set<EventType> = [.childAdded, .childChanged, .childRemoved, .value]
        aliceLog.watch(ref(alice, "list"), all)
        bobLog.watch(ref(bob, "list"), all)
        try ember.flush()
        #expect(aliceLog.take() == ["child_added a: 1", #"value /list: {"a":1}"#])
        #expect(bobLog.take() == ["child_added a: 1", #"value /list: {"a":1}"#])

        alice.goOffline()
        bob.goOffline()
        try ember.flush()
        var completions: [String] = []
        try ref(alice, "list/b").setValue(2) { completions.append("alice b \($0?.code ?? "ok")") }
        try ref(alice, "list/a").setValue(10) { completions.append("alice a \($0?.code ?? "ok")") }
        try ref(bob, "list/c").setValue(3) { completions.append("bob c \($0?.code ?? "ok")") }
        try ref(bob, "list/a").setValue(20) { completions.append("bob a \($0?.code ?? "ok")") }
        #expect(aliceLog.take() == [
            "child_added b after a: 2", #"value /list: {"a":1,"b":2}"#, "child_changed a: 10", #"value /list: {"a":10,"b":2}"#,
        ])
        #expect(bobLog.take() == [
            "child_added c after a: 3", #"value /list: {"a":1,"c":3}"#, "child_changed a: 20", #"value /list: {"a":20,"c":3}"#,
        ])
        try ember.flush()
        #expect(completions.isEmpty)
        #expect(ember.server.value(at: "list") == json(#"{"a":1}"#))

        // Alice first: the server takes her queue in order; her own echoes raise nothing.
        alice.goOnline()
        try ember.flush()
        #expect(completions == ["alice b ok", "alice a ok"])
        #expect(aliceLog.take() == [])
        // Then Bob: he learns Alice's b under his pending writes, and his queue lands last.
        bob.goOnline()
        try ember.flush()
        #expect(completions == ["alice b ok", "alice a ok", "bob c ok", "bob a ok"])
        #expect(bobLog.take() == ["child_added b after a: 2", #"value /list: {"a":20,"b":2,"c":3}"#])
        #expect(aliceLog.take() == [
            "child_added c after b: 3", #"value /list: {"a":10,"b":2,"c":3}"#, "child_changed a: 20",
            #"value /list: {"a":20,"b":2,"c":3}"#,
        ])
        let final = json(#"{"a":20,"b":2,"c":3}"#)
        #expect(ember.server.value(at: "list") == final)
        #expect(alice.cachedValue(at: "list") == final)
        #expect(bob.cachedValue(at: "list") == final)
    }

    /// A client with no listener keeps its pending sets out of its layer of pending writes
    /// until something looks (``WriteTree/applyDeferred()``): whatever looks while they are
    /// pending must see them as if they had been layered when made.
    @Test("sets made before any listener show to a transaction, a listener and a get that come while they are pending")
    func setsBeforeAnyListener() async throws {
        let (ember, _) = makeEmber(latency: 5)
        try ember.server.put(json(#"{"a":1,"n":5}"#), at: "list", hash: nil)
        let alice = client(ember, "alice")
        try ember.flush()
        alice.goOffline()
        try ember.flush()
        var completions: [String] = []
        try ref(alice, "list/b").setValue(2) { completions.append("b=2 \($0?.code ?? "ok")") }
        try ref(alice, "list/n").setValue(7) { completions.append("n=7 \($0?.code ?? "ok")") }
        try ref(alice, "list/b").setValue(3) { completions.append("b=3 \($0?.code ?? "ok")") }
        // A transaction starts from the pending sets (nothing else is known offline).
        var seen: [Node] = []
        try ref(alice, "list/n").runTransaction({ current in
            seen.append(current)
            guard case .int(let value)? = current.leafValue else { return .abort }
            return .commit(Node(.int(value + 1)))
        })
        #expect(seen == [json("7")])
        let log = EventLog()
        log.watch(ref(alice, "list"), [.childAdded, .childChanged, .childRemoved, .value])
        try ember.flush()
        let offline = log.take()
        alice.goOnline()
        try ember.flush()
        let online = log.take()
        #expect(completions == ["b=2 ok", "n=7 ok", "b=3 ok"])
        #expect(ember.server.value(at: "list") == json(#"{"a":1,"b":3,"n":8}"#))
        let value = try await ref(alice, "list").get()
        #expect(value.value == ["a": 1, "b": 3, "n": 8])
        // The same events as with every set layered when made (checked with deferral off).
        #expect(offline == ["child_added b: 3", "child_added n after b: 8"])
        #expect(online == ["child_added a: 1", #"value /list: {"a":1,"b":3,"n":8}"#])
    }

    @Test("reads offline come from the cache; get asks the server when connected")
    func reads() async throws {
        let (ember, _) = makeEmber(latency: 5)
        try ember.server.put(json(#"{"a":1,"b":2,"c":3}"#), at: "data", hash: nil)
        let alice = client(ember, "alice")
        // Online with no listener: the server answers.
        let fromServer = try await ref(alice, "data").get()
        #expect(fromServer.value == ["a": 1, "b": 2, "c": 3])
        let window = try await ref(alice, "data").query.orderByKey().limitToLast(2).get()
        #expect(window.children.map(\.key) == ["b", "c"])
        #expect(alice.activeListens.isEmpty)

        try ref(alice, "data").keepSynced(true)
        try await alice.run { alice.cachedValue(at: "data") != nil }
        #expect(alice.activeListens == [.default(at: "data")])
        alice.goOffline()
        try ember.server.put(Node(.int(9)), at: "data/a", hash: nil)
        let cached = try await ref(alice, "data/a").get()
        #expect(cached.value == 1)
        try ref(alice, "data/d").setValue(4)
        #expect(try await ref(alice, "data").get().value == ["a": 1, "b": 2, "c": 3, "d": 4])
        await #expect(throws: DatabaseError.self) { _ = try await ref(alice, "elsewhere").get() }
        let (first, previous) = try await ref(alice, "data").query.orderByKey().once(.childAdded)
        #expect(first.key == "a")
        #expect(previous == nil)

        alice.goOnline()
        try ember.flush()
        #expect(alice.cachedValue(at: "data") == json(#"{"a":9,"b":2,"c":3,"d":4}"#))
        try ref(alice, "data").keepSynced(false)
        try ember.flush()
        // The client told the server it stopped listening (ServerTests checks that the server
        // drops a connection's listen on unlisten).
        #expect(alice.activeListens.isEmpty)
    }

    @Test(".info/connected follows the connection; a listener that goes is never called again")
    func infoConnected() throws {
        let (ember, _) = makeEmber(latency: 5)
        let alice = client(ember, "alice")
        let log = EventLog()
        let handle = log.watch(ref(alice, ".info/connected"), [.value])
        #expect(log.take() == ["value /.info/connected: false"])
        try ember.flush()
        #expect(log.take() == ["value /.info/connected: true"])
        alice.goOffline()
        #expect(log.take() == ["value /.info/connected: false"])
        alice.goOnline()
        try ember.flush()
        #expect(log.take() == ["value /.info/connected: true"])
        alice.removeObserver(handle)
        alice.goOffline()
        #expect(log.take() == [])
        #expect(throws: DatabaseError.self) { try ref(alice, ".info/connected").keepSynced(true) }
    }

    @Test("removing listeners: by handle, by event type, all at a location; those below stay")
    func listenerRemoval() throws {
        let (ember, _) = makeEmber()
        let alice = client(ember, "alice")
        let log = EventLog()
        log.watch(ref(alice, "room"), [.childAdded], label: "room added")
        log.watch(ref(alice, "room"), [.value], label: "room value")
        log.watch(ref(alice, "room/msg"), [.value], label: "msg value")
        let query = try ref(alice, "room").query.orderByKey().limitToFirst(1)
        log.watch(query, [.childAdded], label: "first")
        try ember.flush()
        _ = log.take()
        try ref(alice, "room/msg").setValue("hi")
        // Deeper locations first, as in the SDKs.
        #expect(log.take() == [
            #"msg value: value /room/msg: "hi""#, #"room added: child_added msg: "hi""#,
            #"room value: value /room: {"msg":"hi"}"#, #"first: child_added msg: "hi""#,
        ])
        ref(alice, "room").removeObservers(.value)
        try ref(alice, "room/msg").setValue("ho")
        #expect(log.take() == [#"msg value: value /room/msg: "ho""#])
        // All listeners at the location, on every query there; the one below stays.
        ref(alice, "room").removeObservers()
        try ref(alice, "room/zed").setValue(1)
        try ref(alice, "room/msg").setValue("hu")
        #expect(log.take() == [#"msg value: value /room/msg: "hu""#])
        try ember.flush()
        #expect(alice.activeListens == [.default(at: "room/msg")])
    }

    @Test("a limited query's window refills from the server when a child leaves it")
    func windowRefills() throws {
        let (ember, _) = makeEmber(latency: 5)
        try ember.server.put(json(#"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6}"#), at: "scores", hash: nil)
        let alice = client(ember, "alice")
        let bob = client(ember, "bob")
        let log = EventLog()
        log.watch(try ref(bob, "scores").query.orderByValue().limitToLast(3), [.childAdded, .childRemoved, .value])
        try ember.flush()
        #expect(log.take() == ["child_added d: 4", "child_added e after d: 5", "child_added f after e: 6", #"value /scores: {"d":4,"e":5,"f":6}"#])

        // Another client removes the top score: the server sends the window's change.
        try ref(alice, "scores/f").removeValue()
        try ember.flush()
        #expect(log.take() == ["child_removed f: 6", "child_added c: 3", #"value /scores: {"c":3,"d":4,"e":5}"#])

        // Bob removes one himself: it leaves at once; the one that replaces it comes from the
        // server, since Bob's cache holds only the window.
        try ref(bob, "scores/e").removeValue()
        #expect(log.take() == ["child_removed e: 5", #"value /scores: {"c":3,"d":4}"#])
        try ember.flush()
        #expect(log.take() == ["child_added b: 2", #"value /scores: {"b":2,"c":3,"d":4}"#])
    }

    @Test("the server-time offset under a skewed server clock, and server timestamps")
    func serverTimeOffset() async throws {
        let (ember, clock) = makeEmber(latency: 10)
        ember.server.clockSkew = 5_000
        let alice = client(ember, "alice")
        let bob = client(ember, "bob")
        let log = EventLog()
        log.watch(ref(alice, ".info/serverTimeOffset"), [.value])
        log.watch(ref(alice, "stamp"), [.value], label: "alice")
        log.watch(ref(bob, "stamp"), [.value], label: "bob")
        try ember.flush()
        // The handshake says the server's time when sent; it arrives 10 ms later.
        #expect(alice.serverTimeOffset == 4_990)
        #expect(log.take() == [
            "value /.info/serverTimeOffset: 0", "value /.info/serverTimeOffset: 4990", "alice: value /stamp: null",
            "bob: value /stamp: null",
        ])
        let writtenAt = clock.now()
        try ref(alice, "stamp").setValue(.serverTimestamp)
        // Locally: the estimated server time; on the server: its own clock when it arrives.
        #expect(log.take() == ["alice: value /stamp: \(writtenAt + 4_990)"])
        try ember.flush()
        #expect(ember.server.value(at: "stamp") == Node(.int(writtenAt + 10 + 5_000)))
        // Bob hears the server's value when it arrives; Alice's write shadows it until the ack.
        #expect(log.take() == ["bob: value /stamp: \(writtenAt + 5_010)", "alice: value /stamp: \(writtenAt + 5_010)"])
    }

    @Test("a get whose connection drops is sent again on reconnection, or answered from the cache after 3 s")
    func getAcrossADrop() throws {
        let (ember, clock) = makeEmber(latency: 50)
        try ember.server.put(Node(.int(2)), at: "y", hash: nil)
        let alice = client(ember, "alice")
        try ember.flush()
        var answers: [String] = []
        let record: (Result<DataSnapshot, DatabaseError>) -> Void = { result in
            switch result {
            case .success(let snapshot): answers.append("value \(snapshot.value.serialized())")
            case .failure(let error): answers.append(error.code)
            }
        }
        // Reconnected within the back-off (at most 1 s): the get goes again and the server answers.
        ref(alice, "y").query.getData(record)
        ember.drop(alice.name)
        try ember.advance(by: 1_000)
        try ember.flush()
        #expect(answers == ["value 2"])

        // A reconnection slower than 3 s: the cache answers, and knows nothing of z.
        ember.reconnectPolicy = ReconnectPolicy(initialDelay: 20_000, maximumDelay: 20_000, multiplier: 1)
        let bob = client(ember, "bob")
        try ember.flush()
        ref(bob, "z").query.getData(record)
        ember.drop(bob.name)
        let droppedAt = clock.now()
        try ember.advance(by: 2_999)
        #expect(answers == ["value 2"])
        try ember.advance(by: 1)
        #expect(answers == ["value 2", "offline"])
        #expect(clock.now() - droppedAt == 3_000)
    }
}
