import EmberClient
import EmberCore
import EmberInstance
import EmberServer
import EmberSync
import EmberTestSupport
import Testing

/// Ports of firebase-js-sdk `packages/database-compat/test/info.test.ts`, each test named after
/// its `it(...)`.
@Suite("Firebase info.test.ts")
struct FirebaseInfoTests {
    // info.test.ts: 'Can get a reference to .info nodes.'
    @Test("Can get a reference to .info nodes.")
    func referenceToInfoNodes() throws {
        let (ember, _) = makeEmber()
        let root = client(ember, "main").root
        #expect(try root.child(".info").path.description == "/.info")
        #expect(try root.child(".info/foo").path.description == "/.info/foo")
    }

    // info.test.ts: "Can't write to .info". (Firebase's assertions are `expect(fn).to.throw`
    // without the call, which chai never checks; here each write really must throw.)
    @Test("Can't write to .info")
    func cannotWriteToInfo() throws {
        let (ember, _) = makeEmber()
        let database = client(ember, "main")
        let info = try database.root.child(".info")
        #expect(throws: EmberCore.DatabaseError.self) { try info.setValue("hi") }
        #expect(throws: EmberCore.DatabaseError.self) { try info.setValue("hi", priority: .number(5)) }
        #expect(throws: EmberCore.DatabaseError.self) { try info.setPriority(.string("hi")) }
        #expect(throws: EmberCore.DatabaseError.self) { try info.runTransaction { _ in .abort } }
        #expect(throws: EmberCore.DatabaseError.self) { try info.childByAutoId().setValue("hi") }
        #expect(throws: EmberCore.DatabaseError.self) { try info.removeValue() }
        #expect(throws: EmberCore.DatabaseError.self) { try info.child("test").setValue("hi") }
        let deeper = try info.child("foo/baz")
        #expect(throws: EmberCore.DatabaseError.self) { try deeper.setValue("hi") }
        #expect(database.pendingWriteCount == 0)
    }

    // info.test.ts: 'Can watch .info/connected.'
    @Test("Can watch .info/connected.")
    func watchConnected() throws {
        let (ember, _) = makeEmber(latency: 5)
        let database = client(ember, "main")
        var connected = false
        try database.root.child(".info/connected").observe(.value) { snapshot, _ in
            if snapshot.value == true { connected = true }
        }
        try ember.run { connected }
    }

    // info.test.ts: '.info/connected correctly goes to false when disconnected.'
    @Test(".info/connected correctly goes to false when disconnected.")
    func connectedGoesFalse() throws {
        let (ember, _) = makeEmber(latency: 5)
        let database = client(ember, "main")
        var everConnected = false
        var connectHistory = ""
        try database.root.child(".info/connected").observe(.value) { snapshot, _ in
            if snapshot.value == true { everConnected = true }
            if everConnected { connectHistory += "\(snapshot.value.serialized())," }
        }
        try ember.run { everConnected }
        database.goOffline()
        database.goOnline()
        try ember.flush()
        #expect(connectHistory == "true,false,true,")
    }

    // info.test.ts: '.info/serverTimeOffset'. (Firebase asserts an offset of at least 0 from a
    // real server; here the clocks agree and the first connection has no latency, so it is 0.)
    @Test(".info/serverTimeOffset")
    func serverTimeOffset() throws {
        let (ember, _) = makeEmber()
        let database = client(ember, "main")
        let root = database.root
        _ = root.childByAutoId()  // push() works
        var offsets: [JSONValue] = []
        let handle = try root.child(".info/serverTimeOffset").observe(.value) { snapshot, _ in
            offsets.append(snapshot.value)
        }
        try ember.run { offsets.count == 1 }
        guard case .int(let offset) = offsets[0] else {
            Issue.record("not a number: \(offsets[0])")
            return
        }
        #expect(offset >= 0)
        _ = root.childByAutoId()  // push() still works
        database.removeObserver(handle)
    }

    // info.test.ts: 'database.goOffline() / database.goOnline() connection management' (it.skip
    // upstream: it needs two Firebase namespaces; here two clients of one instance).
    @Test("database.goOffline() / database.goOnline() connection management")
    func connectionManagement() throws {
        let (ember, _) = makeEmber(latency: 5)
        let first = client(ember, "first")
        let second = client(ember, "second")
        var connected: [String: Bool] = [:]
        for database in [first, second] {
            try database.root.child(".info/connected").observe(.value) { snapshot, _ in
                connected[database.name.description] = snapshot.value == true
            }
        }
        // Connected to both.
        try ember.run { connected["first"] == true && connected["second"] == true }
        first.goOffline()
        second.goOffline()
        // Disconnected from both.
        #expect(connected["first"] == false && connected["second"] == false)
        // A new reference does not reconnect.
        var reconnected = false
        try first.root.child(".info/connected").observe(.value) { snapshot, _ in
            if snapshot.value == true { reconnected = true }
        }
        try ember.advance(by: 500)
        #expect(!reconnected)
        first.goOnline()
        second.goOnline()
        // Connected to both again.
        try ember.run { connected["first"] == true && connected["second"] == true }
        #expect(reconnected)
    }
}
