import EmberClient
import EmberCore
import EmberRules
import EmberInstance
import EmberServer
import EmberSync
import Testing

/// The seeds' presence system, as written in the offline-capabilities guide (Swift version):
/// a list of connections per user; on every `.info/connected` true, a new push child whose
/// `onDisconnect().removeValue()` is registered before it is set to `true`, and `lastOnline`
/// set to the server timestamp on disconnect.
func installPresence(on database: Database, user: String) {
    // since I can connect from multiple devices, we store each connection instance separately
    // any time that connectionsRef's value is null (i.e. has no children) I am offline
    let myConnectionsRef = ref(database, "users/\(user)/connections")
    // stores the timestamp of my last disconnect (the last time I was seen online)
    let lastOnlineRef = ref(database, "users/\(user)/lastOnline")
    let connectedRef = ref(database, ".info/connected")
    connectedRef.observe(.value) { snapshot, _ in
        // only handle connection established (or I've reconnected after a loss of connection)
        guard snapshot.value == .bool(true) else { return }
        // add this device to my connections list
        let con = myConnectionsRef.childByAutoId()
        // when this device disconnects, remove it.
        try! con.onDisconnect().removeValue()
        // this value could contain info about the device or a timestamp instead of just true
        try! con.setValue(true)
        // when I disconnect, update the last time I was seen online
        try! lastOnlineRef.onDisconnect().setValue(.serverTimestamp)
    }
}

@Suite("Presence")
struct PresenceTests {
    /// Morgan runs the presence code; Bob watches Morgan's connections and lastOnline.
    private func setUp(latency: Int64 = 10) throws -> (Ember, ManualClock, Database, EventLog) {
        let (ember, clock) = makeEmber(latency: latency, disconnectTimeout: 60_000)
        let morgan = client(ember, "morgan")
        installPresence(on: morgan, user: "morgan")
        let bob = client(ember, "bob")
        let log = EventLog()
        log.watch(ref(bob, "users/morgan/connections"), [.childAdded, .childRemoved])
        log.watch(ref(bob, "users/morgan/lastOnline"), [.value])
        try ember.flush()
        return (ember, clock, morgan, log)
    }

    private func connectionKeys(_ ember: Ember) -> [String] {
        ember.server.value(at: "users/morgan/connections").children.map(\.key.name)
    }

    @Test("a clean close: the server removes the connection and stamps lastOnline, seen by another client")
    func cleanClose() throws {
        let (ember, clock, morgan, log) = try setUp()
        let first = try #require(connectionKeys(ember).first)
        #expect(connectionKeys(ember).count == 1)
        #expect(log.take() == ["child_added \(first): true", "value /users/morgan/lastOnline: null"])
        #expect(ember.server.onDisconnectOperations(of: ember.server.connectionIDs[0]).count == 2)

        let closedAt = clock.now()
        morgan.goOffline()
        try ember.flush()
        // The close travels 10 ms; the server runs both operations, in the order registered.
        #expect(log.take() == ["child_removed \(first): true", "value /users/morgan/lastOnline: \(closedAt + 10)"])
        #expect(connectionKeys(ember).isEmpty)

        morgan.goOnline()
        try ember.flush()
        let second = try #require(connectionKeys(ember).first)
        #expect(second > first)
        #expect(log.take() == ["child_added \(second): true"])
    }

    @Test("a silent drop: a ghost connection until the server's timeout, then removal and lastOnline")
    func silentDrop() throws {
        let (ember, clock, morgan, log) = try setUp()
        let first = try #require(connectionKeys(ember).first)
        _ = log.take()
        var connected: [Bool] = []
        ref(morgan, ".info/connected").observe(.value) { snapshot, _ in connected.append(snapshot.value == .bool(true)) }
        let droppedAt = clock.now()
        ember.drop(morgan.name)
        try ember.flush()
        // Morgan knows at once; the server does not.
        #expect(connected == [true, false])
        #expect(morgan.connectionState == .disconnected)
        #expect(log.take() == [])

        // Morgan reconnects after its back-off (500 to 1000 ms) and adds a second connection
        // while the first is still there: the ghost.
        try ember.advance(by: 1_000)
        try ember.flush()
        #expect(morgan.connectionState == .connected)
        #expect(connected == [true, false, true])
        let keys = connectionKeys(ember)
        #expect(keys.count == 2)
        let second = try #require(keys.first { $0 != first })
        #expect(log.take() == ["child_added \(second) after \(first): true"])

        // The server notices after its 60 s timeout and runs the old connection's operations.
        try ember.advance(by: 60_000 - (clock.now() - droppedAt) - 1)
        #expect(log.take() == [])
        try ember.advance(by: 1)
        try ember.flush()  // the server's news takes 10 ms to reach Bob
        #expect(log.take() == ["child_removed \(first): true", "value /users/morgan/lastOnline: \(droppedAt + 60_000)"])
        #expect(connectionKeys(ember) == [second])
    }

    @Test("cancel forgets the operations at and below a location; registration completes with the server's answer")
    func cancelAndCompletion() async throws {
        let (ember, _) = makeEmber()
        try ember.server.setRules(Ruleset(text: #"{"rules": {".read": true, "$other": {".write": true}, "locked": {".write": false}}}"#))
        let alice = client(ember, "alice")
        let bob = client(ember, "bob")
        let log = EventLog()
        log.watch(ref(bob, "status"), [.childAdded, .childChanged, .childRemoved])
        try ember.flush()

        try await ref(alice, "status/alice").onDisconnect().set("offline")
        try await ref(alice, "status/alice/device").onDisconnect().set("gone")
        try await ref(alice, "status/other").onDisconnect().set("bye")
        await #expect(throws: DatabaseError.permissionDenied(at: "locked/x")) {
            try await ref(alice, "locked/x").onDisconnect().set(1)
        }
        #expect(ember.server.onDisconnectOperations(of: ember.server.connectionIDs[0]).count == 3)
        try await ref(alice, "status/alice").onDisconnect().cancel()
        #expect(ember.server.onDisconnectOperations(of: ember.server.connectionIDs[0]).count == 1)

        // Registered while offline: sent with the next connection, completed then.
        alice.goOffline()
        try ember.flush()
        #expect(log.take() == [#"child_added other: "bye""#])
        var completed = false
        try ref(alice, "status/queued").onDisconnect().setValue(true) { error in
            #expect(error == nil)
            completed = true
        }
        try ember.flush()
        #expect(!completed)
        alice.goOnline()
        try ember.flush()
        #expect(completed)
        alice.goOffline()
        try ember.flush()
        #expect(log.take() == ["child_added queued after other: true"])
    }
}
