import EmberClient
import EmberCore
import EmberInstance
import EmberServer
import EmberSync
import EmberTestSupport
import Testing

/// Ports of firebase-js-sdk `packages/database-compat/test/order_by.test.ts`, each test named
/// after its `it(...)`.
@Suite("Firebase order_by.test.ts")
struct FirebaseOrderByTests {
    /// Firebase's `valueOrder`, `addedOrder` and `addedPrevNames` for a query.
    private final class OrderLog {
        var valueOrder: [String] = []
        var addedOrder: [String] = []
        var addedPrevNames: [String?] = []

        init(_ query: Query, value: Bool = true) {
            if value { query.observe(.value) { [self] snapshot, _ in valueOrder += snapshot.childKeys } }
            query.observe(.childAdded) { [self] snapshot, previous in
                addedOrder.append(snapshot.key ?? "")
                addedPrevNames.append(previous)
            }
        }
    }

    private let nuggets: JSONValue = [
        "alex": ["nuggets": 60], "rob": ["nuggets": 56], "vassili": ["nuggets": 55.5],
        "tony": ["nuggets": 52], "greg": ["nuggets": 52],
    ]
    private let plainNuggets: JSONValue = ["alex": 60, "rob": 56, "vassili": 55.5, "tony": 52, "greg": 52]

    // order_by.test.ts: 'Snapshots are iterated in order'
    @Test("Snapshots are iterated in order")
    func iteratedInOrder() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        let log = OrderLog(try node.query.orderByChild("nuggets"))
        try node.setValue(nuggets)
        #expect(log.addedOrder == ["greg", "tony", "vassili", "rob", "alex"])
        #expect(log.valueOrder == ["greg", "tony", "vassili", "rob", "alex"])
        #expect(log.addedPrevNames == [nil, "greg", "tony", "vassili", "rob"])
    }

    // order_by.test.ts: 'Snapshots are iterated in order for value'
    @Test("Snapshots are iterated in order for value")
    func iteratedInOrderForValue() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        let log = OrderLog(try node.query.orderByValue())
        try node.setValue(plainNuggets)
        #expect(log.addedOrder == ["greg", "tony", "vassili", "rob", "alex"])
        #expect(log.valueOrder == ["greg", "tony", "vassili", "rob", "alex"])
        #expect(log.addedPrevNames == [nil, "greg", "tony", "vassili", "rob"])
    }

    // order_by.test.ts: 'Fires child_moved events'
    @Test("Fires child_moved events")
    func firesChildMoved() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var moves: [String] = []
        try node.query.orderByChild("nuggets").observe(.childMoved) { snapshot, previous in
            moves.append("\(snapshot.key ?? "") after \(previous ?? "null"): \(snapshot.value.serialized())")
        }
        try node.setValue(nuggets)
        try node.at("greg/nuggets").setValue(57)
        #expect(moves == [#"greg after rob: {"nuggets":57}"#])
    }

    // order_by.test.ts: 'Callback removal works'
    @Test("Callback removal works")
    func callbackRemoval() throws {
        let (ember, _) = makeEmber(latency: 5)
        let database = try connectedClient(ember, "main")
        let node = ref(database, "node")
        var reads = 0
        let fooCb = try node.query.orderByChild("foo").observe(.value) { _, _ in reads += 1 }
        try node.query.orderByChild("bar").observe(.value) { _, _ in reads += 1 }
        try node.query.orderByChild("baz").observe(.value) { _, _ in reads += 1 }
        node.observe(.value) { _, _ in reads += 1 }
        try node.setValue(1)
        try ember.flush()
        #expect(reads == 4)

        // ref.off('value', fooCb): a listener goes by its handle, whatever its query.
        database.removeObserver(fooCb)
        try node.setValue(2)
        #expect(reads == 7)
        // ref.orderByChild('foo').off('value', bazCb) is a no-op in Firebase; Ember has no way to
        // name a listener under another query than its own, so the step is only the set.
        try node.setValue(3)
        #expect(reads == 10)
        try node.query.orderByChild("bar").removeObservers(.value)
        try node.setValue(4)
        #expect(reads == 12)
        // Now everything.
        node.removeObservers()
        try node.setValue(5)
        #expect(reads == 12)
    }

    // order_by.test.ts: 'child_added events are in the correct order'
    @Test("child_added events are in the correct order")
    func childAddedOrder() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var added: [String] = []
        try node.query.orderByChild("value").observe(.childAdded) { snapshot, _ in added.append(snapshot.key ?? "") }
        try node.setValue(["a": ["value": 5], "c": ["value": 3]])
        #expect(added == ["c", "a"])
        try node.updateChildValues(["b": ["value": 4], "d": ["value": 2]])
        #expect(added == ["c", "a", "d", "b"])
    }

    // order_by.test.ts: 'Can use key index'
    @Test("Can use key index")
    func keyIndex() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try await node.set([
            "a": [".priority": 10, ".value": "a"], "b": [".priority": 5, ".value": "b"],
            "c": [".priority": 20, ".value": "c"], "d": [".priority": 7, ".value": "d"],
            "e": [".priority": 30, ".value": "e"], "f": [".priority": 8, ".value": "f"],
        ])
        let (snap, _) = try await node.query.orderByKey().startAt(.string("c")).once(.value)
        #expect(snap.childKeys == ["c", "d", "e", "f"])

        var keys: [String] = []
        try node.query.orderByKey().limitToLast(5).observe(.childAdded) { child, _ in keys.append(child.key ?? "") }
        try await ember.run { keys.count >= 5 }
        try node.query.orderByKey().removeObservers()
        #expect(keys == ["b", "c", "d", "e", "f"])
    }

    // order_by.test.ts: 'Queries work on leaf nodes'
    @Test("Queries work on leaf nodes")
    func queriesOnLeafNodes() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try await node.set("leaf-node")
        var values: [JSONValue] = []
        try node.query.orderByChild("foo").limitToLast(1).observe(.value) { snapshot, _ in values.append(snapshot.value) }
        try await ember.run { !values.isEmpty }
        #expect(values == [.null])
    }

    // order_by.test.ts: 'Updates for unindexed queries work'
    @Test("Updates for unindexed queries work")
    func unindexedQueryUpdates() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let reader = ref(try connectedClient(ember, "reader"), "node")
        let writer = ref(try connectedClient(ember, "writer"), "node")
        try await writer.set([
            "one": ["index": 1, "value": "one"], "two": ["index": 2, "value": "two"],
            "three": ["index": 3, "value": "three"],
        ])
        var values: [JSONValue] = []
        try reader.query.orderByChild("index").limitToLast(2).observe(.value) { snapshot, _ in
            values.append(snapshot.value)
            // The first value: update a child, which must raise another.
            if values.count == 1 { try? writer.at("one/index").setValue(4) }
        }
        try await ember.run { values.count >= 2 }
        // (Ember's JSON lists members in key order.)
        #expect(values == [
            ["three": ["index": 3, "value": "three"], "two": ["index": 2, "value": "two"]],
            ["one": ["index": 4, "value": "one"], "three": ["index": 3, "value": "three"]],
        ])
    }

    // order_by.test.ts: 'Server respects KeyIndex'
    @Test("Server respects KeyIndex")
    func serverRespectsKeyIndex() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let reader = ref(try connectedClient(ember, "reader"), "node")
        let writer = ref(try connectedClient(ember, "writer"), "node")
        let ordered = try reader.query.orderByKey().startAt(.string("b")).limitToFirst(2)
        try await writer.set(["a": 1, "b": 2, "c": 3])
        var actual: [[String]] = []
        ordered.observe(.value) { snapshot, _ in actual.append(snapshot.childKeys) }
        try await ember.run { !actual.isEmpty }
        #expect(actual.first == ["b", "c"])
    }

    private func checkValueIndexWindow(
        _ window: (Query) throws -> Query, expectedOrder: [String], expectedPrevNames: [String?]
    ) throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        let log = OrderLog(try window(try node.query.orderByValue()))
        try node.setValue(plainNuggets)
        #expect(log.addedOrder == expectedOrder)
        #expect(log.valueOrder == expectedOrder)
        #expect(log.addedPrevNames == expectedPrevNames)
    }

    // order_by.test.ts: 'startAt/endAt works on value index'
    @Test("startAt/endAt works on value index")
    func startAtEndAtValueIndex() throws {
        try checkValueIndexWindow(
            { try $0.startAt(.int(52), key: "tony").endAt(.int(59)) },
            expectedOrder: ["tony", "vassili", "rob"], expectedPrevNames: [nil, "tony", "vassili"])
    }

    // order_by.test.ts: 'startAfter / endAt works on value index'
    @Test("startAfter / endAt works on value index")
    func startAfterEndAtValueIndex() throws {
        try checkValueIndexWindow(
            { try $0.startAfter(.int(52), key: "tony").endAt(.int(59)) },
            expectedOrder: ["vassili", "rob"], expectedPrevNames: [nil, "vassili"])
    }

    // order_by.test.ts: 'startAt / endBefore works on value index'
    @Test("startAt / endBefore works on value index")
    func startAtEndBeforeValueIndex() throws {
        try checkValueIndexWindow(
            { try $0.startAt(.int(52), key: "tony").endBefore(.int(60)) },
            expectedOrder: ["tony", "vassili", "rob"], expectedPrevNames: [nil, "tony", "vassili"])
    }

    // order_by.test.ts: 'startAfter / endBefore works on value index'
    @Test("startAfter / endBefore works on value index")
    func startAfterEndBeforeValueIndex() throws {
        try checkValueIndexWindow(
            { try $0.startAfter(.int(52), key: "tony").endBefore(.int(60)) },
            expectedOrder: ["vassili", "rob"], expectedPrevNames: [nil, "vassili"])
    }

    // order_by.test.ts: 'Removing default listener removes non-default listener that loads all data'
    @Test("Removing default listener removes non-default listener that loads all data")
    func removingDefaultListenerRemovesLoadsAllData() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let database = try connectedClient(ember, "main")
        let node = ref(database, "node")
        try await node.set(["key": "value"])
        try node.query.orderByKey().observe(.value) { _, _ in }
        node.observe(.value) { _, _ in }
        // Removes both listeners, and the listen sent to the server.
        node.removeObservers()
        try ember.flush()
        #expect(database.activeListens.isEmpty)
        // This used to crash because a listener for ref.orderByKey() existed already.
        let (snap, _) = try await node.query.orderByKey().once(.value)
        #expect(snap.value == ["key": "value"])
    }

    // order_by.test.ts: 'Can define and use an deep index'
    @Test("Can define and use an deep index")
    func deepIndex() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        let ordered = try node.query.orderByChild("deep/nuggets").limitToFirst(3)
        // child_added before value.
        let log = OrderLog(ordered, value: false)
        var valueOrder: [String] = []
        ordered.observeOnce(.value) { result in
            if case .success(let (snapshot, _)) = result { valueOrder = snapshot.childKeys }
        }
        var answered = false
        try node.setValue([
            "alex": ["deep": ["nuggets": 60]], "rob": ["deep": ["nuggets": 56]],
            "vassili": ["deep": ["nuggets": 55.5]], "tony": ["deep": ["nuggets": 52]],
            "greg": ["deep": ["nuggets": 52]],
        ]) { error in
            #expect(error == nil)
            #expect(log.addedOrder == ["greg", "tony", "vassili"])
            #expect(valueOrder == ["greg", "tony", "vassili"])
            #expect(log.addedPrevNames == [nil, "greg", "tony"])
            answered = true
        }
        try ember.run { answered }
    }
}
