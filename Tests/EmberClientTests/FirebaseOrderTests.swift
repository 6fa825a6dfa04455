import EmberClient
import EmberCore
import EmberInstance
import EmberServer
import EmberSync
import EmberTestSupport
import Testing

/// Ports of firebase-js-sdk `packages/database-compat/test/order.test.ts`, each test named after
/// its `it(...)`. Its `beforeEach` waits for the connection: every client here is connected first.
@Suite("Firebase order.test.ts")
struct FirebaseOrderTests {
    /// The values of a snapshot's children, in its order, as integers.
    private func childNumbers(_ snapshot: DataSnapshot) -> [Int64] {
        snapshot.children.compactMap { number($0.node) }
    }

    // order.test.ts: 'Push a bunch of data, enumerate it back; ensure order is correct.'
    @Test("Push a bunch of data, enumerate it back; ensure order is correct.")
    func pushEnumerate() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        for i in 0..<10 { try node.childByAutoId().setValue(.int(Int64(i))) }
        let (snap, _) = try await node.once(.value)
        #expect(childNumbers(snap) == Array(0..<10))
    }

    // order.test.ts: 'Push a bunch of paths, then write; ensure order is correct.'
    @Test("Push a bunch of paths, then write; ensure order is correct.")
    func pushPathsThenWrite() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        // All pushed first, in the same millisecond.
        let paths = (0..<20).map { _ in node.childByAutoId() }
        for (i, path) in paths.enumerated() { try path.setValue(.int(Int64(i))) }
        let (snap, _) = try await node.once(.value)
        #expect(childNumbers(snap) == Array(0..<20))
    }

    // order.test.ts: 'Push a bunch of data, reconnect, read it back; ensure order is chronological.'
    @Test("Push a bunch of data, reconnect, read it back; ensure order is chronological.")
    func pushReconnectReadBack() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "first"), "node")
        let other = ref(try connectedClient(ember, "second"), "node")
        for i in 0..<10 { try node.childByAutoId().setValue(.int(Int64(i))) }
        let (snap, _) = try await node.once(.value)
        #expect(childNumbers(snap) == Array(0..<10))
        var readSnap: DataSnapshot?
        other.observe(.value) { snapshot, _ in readSnap = snapshot }
        try await ember.run { readSnap != nil }
        #expect(readSnap.map(childNumbers) == Array(0..<10))
    }

    // order.test.ts: 'Push a bunch of data with explicit priority, reconnect, read it back; ensure order is correct.'
    @Test("Push a bunch of data with explicit priority, reconnect, read it back; ensure order is correct.")
    func pushWithPriorityReadBack() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "first"), "node")
        let other = ref(try connectedClient(ember, "second"), "node")
        for i in 0..<10 { try node.childByAutoId().setValue(.int(Int64(i)), priority: .number(Double(10 - i))) }
        let (snap, _) = try await node.once(.value)
        #expect(childNumbers(snap) == Array((0..<10).reversed()))
        // The other client's view is remote: it must wait for the server to have it all.
        var readSnap: DataSnapshot?
        other.observe(.value) { snapshot, _ in readSnap = snapshot }
        try await ember.run { readSnap != nil }
        #expect(readSnap.map(childNumbers) == Array((0..<10).reversed()))
    }

    // order.test.ts: 'Push data with exponential priority and ensure order is correct.'
    @Test("Push data with exponential priority and ensure order is correct.")
    func pushExponentialPriority() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "first"), "node")
        let other = ref(try connectedClient(ember, "second"), "node")
        for i in 0..<10 {
            let priority = 111111111111111111111111111111.0 / (0..<i).reduce(1.0) { power, _ in power * 10 }
            try node.childByAutoId().setValue(.int(Int64(i)), priority: .number(priority))
        }
        let (snap, _) = try await node.once(.value)
        #expect(childNumbers(snap) == Array((0..<10).reversed()))
        var readSnap: DataSnapshot?
        other.observe(.value) { snapshot, _ in readSnap = snapshot }
        try await ember.run { readSnap != nil }
        #expect(readSnap.map(childNumbers) == Array((0..<10).reversed()))
    }

    // order.test.ts: "Verify nodes without values aren't enumerated."
    @Test("Verify nodes without values aren't enumerated.")
    func nodesWithoutValuesNotEnumerated() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        _ = node.at("foo")
        try node.at("bar").setValue("test")
        let (snap, _) = try await node.once(.value)
        #expect(snap.childKeys == ["bar"])
    }

    // order.test.ts: 'Receive child_moved event when priority changes.' (it.skip upstream. Its
    // event helper waits for the listener to be initialized, i.e. for the server's data, before
    // the writes: so does this port, dropping that initial null value.)
    @Test("Receive child_moved event when priority changes.")
    func childMovedWhenPriorityChanges() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var events: [String] = []
        node.query.observe([.childAdded, .childMoved, .childChanged, .value]) { event in
            if case .data(let type, let snapshot, _) = event { events.append("\(type.rawValue) \(snapshot.key ?? "")") }
        }
        try ember.flush()
        #expect(events == ["value node"])
        events = []
        try node.at("a").setValue("first", priority: .number(1))
        try node.at("b").setValue("second", priority: .number(5))
        try node.at("c").setValue("third", priority: .number(10))
        #expect(events == ["child_added a", "value node", "child_added b", "value node", "child_added c", "value node"])
        events = []
        try node.at("a").setPriority(.number(15))
        #expect(events == ["child_moved a", "child_changed a", "value node"])
    }

    // order.test.ts: 'Can reset priority to null.' (it.skip upstream. The value event needs the
    // server's data, which the event helper waits for: so does this port.)
    @Test("Can reset priority to null.")
    func resetPriorityToNull() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        try node.at("a").setValue("a", priority: .number(1))
        try node.at("b").setValue("b", priority: .number(2))
        var events: [String] = []
        node.query.observe([.childAdded, .childMoved, .childChanged, .value]) { event in
            if case .data(let type, let snapshot, _) = event { events.append("\(type.rawValue) \(snapshot.key ?? "")") }
        }
        try ember.flush()
        #expect(events == ["child_added a", "child_added b", "value node"])
        events = []
        try node.at("b").setPriority(nil)
        #expect(events == ["child_moved b", "child_changed b", "value node"])
        let (snap, _) = try await node.once(.value)
        #expect(try snap.child("b").priority == nil)
    }

    // order.test.ts: 'Inserting a node under a leaf node preserves its priority.'
    @Test("Inserting a node under a leaf node preserves its priority.")
    func insertUnderLeafKeepsPriority() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var snap: DataSnapshot?
        node.observe(.value) { snapshot, _ in snap = snapshot }
        try node.setValue("a", priority: .number(10))
        try node.at("deeper").setValue("deeper")
        #expect(snap?.priority == .number(10))
    }

    // order.test.ts: 'Verify order of mixed numbers / strings / no priorities.'
    @Test("Verify order of mixed numbers / strings / no priorities.")
    func mixedPriorityOrder() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let first = ref(try connectedClient(ember, "first"), "node")
        let second = ref(try connectedClient(ember, "second"), "node")
        let nodeAndPriorities: [(String, Priority?)] = [
            ("alpha42", .string("zed")), ("noPriorityC", nil), ("num41", .number(500)), ("noPriorityB", nil),
            ("num80", .number(4000.1)), ("num50", .number(4000)), ("num10", .number(24)), ("alpha41", .string("zed")),
            ("alpha20", .string("horse")), ("num20", .number(123)), ("num70", .number(4000.01)), ("noPriorityA", nil),
            ("alpha30", .string("tree")), ("num30", .number(300)), ("num60", .number(4000.001)),
            ("alpha10", .string("0horse")), ("num42", .number(500)), ("alpha40", .string("zed")), ("num40", .number(500)),
        ]
        var setsCompleted = 0
        for (key, priority) in nodeAndPriorities {
            try first.at(key).setValue(1, priority: priority) { _ in setsCompleted += 1 }
        }
        let expectedOutput = "noPriorityA, noPriorityB, noPriorityC, num10, num20, num30, num40, num41, num42, num50, num60, num70, num80, alpha10, alpha20, alpha30, alpha40, alpha41, alpha42, "
        let (snap, _) = try await first.once(.value)
        #expect(snap.childKeys.map { "\($0), " }.joined() == expectedOutput)

        var outputs: [String] = []
        second.observe(.value) { snapshot, _ in outputs.append(snapshot.childKeys.map { "\($0), " }.joined()) }
        try await ember.run { !outputs.isEmpty && setsCompleted == nodeAndPriorities.count }
        try ember.flush()
        #expect(outputs == [expectedOutput])
    }

    // order.test.ts: 'Verify order of integer keys.'
    @Test("Verify order of integer keys.")
    func integerKeyOrder() async throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        for key in ["foo", "bar", "03", "0", "100", "20", "5", "3", "003", "9"] { try node.at(key).setValue(true) }
        let (snap, _) = try await node.once(.value)
        #expect(snap.childKeys.map { "\($0), " }.joined() == "0, 3, 03, 003, 5, 9, 20, 100, bar, foo, ")
    }

    /// Logs `child_added`/`child_moved` events as "key prevName, " (Firebase's `added`/`moved`).
    private func prevNameLog(_ query: Query, _ type: EventType, into text: @escaping (String) -> Void) {
        query.observe(type) { snapshot, previous in text("\(snapshot.key ?? "") \(previous ?? "null"), ") }
    }

    // order.test.ts: 'Ensure prevName is correct on child_added event.'
    @Test("Ensure prevName is correct on child_added event.")
    func prevNameOnChildAdded() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var added = ""
        prevNameLog(node.query, .childAdded) { added += $0 }
        try node.setValue(["a": 1, "b": 2, "c": 3])
        #expect(added == "a null, b a, c b, ")
    }

    // order.test.ts: 'Ensure prevName is correct when adding new nodes.'
    @Test("Ensure prevName is correct when adding new nodes.")
    func prevNameAddingNodes() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var added = ""
        prevNameLog(node.query, .childAdded) { added += $0 }
        try node.setValue(["b": 2, "c": 3, "d": 4])
        #expect(added == "b null, c b, d c, ")
        added = ""
        try node.at("a").setValue(1)
        #expect(added == "a null, ")
        added = ""
        try node.at("e").setValue(5)
        #expect(added == "e d, ")
    }

    // order.test.ts: 'Ensure prevName is correct when adding new nodes with JSON.'
    @Test("Ensure prevName is correct when adding new nodes with JSON.")
    func prevNameAddingNodesWithJSON() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var added = ""
        prevNameLog(node.query, .childAdded) { added += $0 }
        try node.setValue(["b": 2, "c": 3, "d": 4])
        #expect(added == "b null, c b, d c, ")
        added = ""
        try node.setValue(["a": 1, "b": 2, "c": 3, "d": 4])
        #expect(added == "a null, ")
        added = ""
        try node.setValue(["a": 1, "b": 2, "c": 3, "d": 4, "e": 5])
        #expect(added == "e d, ")
    }

    // order.test.ts: 'Ensure prevName is correct when moving nodes.'
    @Test("Ensure prevName is correct when moving nodes.")
    func prevNameMovingNodes() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var moved = ""
        prevNameLog(node.query, .childMoved) { moved += $0 }
        try node.at("a").setValue("a", priority: .number(1))
        try node.at("b").setValue("b", priority: .number(2))
        try node.at("c").setValue("c", priority: .number(3))
        try node.at("d").setValue("d", priority: .number(4))
        try node.at("d").setPriority(.number(0))
        #expect(moved == "d null, ")
        moved = ""
        try node.at("a").setPriority(.number(4))
        #expect(moved == "a c, ")
        moved = ""
        try node.at("c").setPriority(.number(0.5))
        #expect(moved == "c d, ")
    }

    // order.test.ts: 'Ensure prevName is correct when moving nodes by setting whole JSON.'
    @Test("Ensure prevName is correct when moving nodes by setting whole JSON.")
    func prevNameMovingNodesWithJSON() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var moved = ""
        prevNameLog(node.query, .childMoved) { moved += $0 }
        try node.setValue([
            "a": [".value": "a", ".priority": 1], "b": [".value": "b", ".priority": 2],
            "c": [".value": "c", ".priority": 3], "d": [".value": "d", ".priority": 4],
        ])
        try node.setValue([
            "d": [".value": "d", ".priority": 0], "a": [".value": "a", ".priority": 1],
            "b": [".value": "b", ".priority": 2], "c": [".value": "c", ".priority": 3],
        ])
        #expect(moved == "d null, ")
        moved = ""
        try node.setValue([
            "d": [".value": "d", ".priority": 0], "b": [".value": "b", ".priority": 2],
            "c": [".value": "c", ".priority": 3], "a": [".value": "a", ".priority": 4],
        ])
        #expect(moved == "a c, ")
        moved = ""
        try node.setValue([
            "d": [".value": "d", ".priority": 0], "c": [".value": "c", ".priority": 0.5],
            "b": [".value": "b", ".priority": 2], "a": [".value": "a", ".priority": 4],
        ])
        #expect(moved == "c d, ")
    }

    // order.test.ts: 'Case 595: Should not get child_moved event when deleting prioritized grandchild.'
    @Test("Case 595: Should not get child_moved event when deleting prioritized grandchild.")
    func noChildMovedDeletingPrioritizedGrandchild() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var moves = 0
        node.observe(.childMoved) { _, _ in moves += 1 }
        try node.at("test/foo").setValue(42, priority: .string("5"))
        try node.at("test/foo2").setValue(42, priority: .string("10"))
        try node.at("test/foo").removeValue()
        try node.at("test/foo2").removeValue()
        #expect(moves == 0, "Should *not* have received any move events.")
    }

    // order.test.ts: 'Can set value with priority of 0.'
    @Test("Can set value with priority of 0.")
    func valueWithPriorityZero() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var snap: DataSnapshot?
        node.observe(.value) { snapshot, _ in snap = snapshot }
        try node.setValue("test", priority: .number(0))
        #expect(snap?.priority == .number(0))
    }

    // order.test.ts: 'Can set object with priority of 0.'
    @Test("Can set object with priority of 0.")
    func objectWithPriorityZero() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var snap: DataSnapshot?
        node.observe(.value) { snapshot, _ in snap = snapshot }
        try node.setValue(["x": "test", "y": 7], priority: .number(0))
        #expect(snap?.priority == .number(0))
    }

    // order.test.ts: 'Case 2003: Should get child_moved for any priority change, regardless of
    // whether it affects ordering.'
    @Test("Case 2003: Should get child_moved for any priority change, regardless of whether it affects ordering.")
    func childMovedForAnyPriorityChange() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var moved: [String] = []
        node.observe(.childMoved) { snapshot, _ in moved.append(snapshot.key ?? "") }
        try node.setValue([
            "a": [".value": "a", ".priority": 0], "b": [".value": "b", ".priority": 1],
            "c": [".value": "c", ".priority": 2], "d": [".value": "d", ".priority": 3],
        ])
        #expect(moved == [])
        try node.at("b").setValue("b", priority: .number(1.5))
        #expect(moved == ["b"])
    }

    // order.test.ts: 'Case 2003: Should get child_moved for any priority change, regardless of
    // whether it affects ordering (2).'
    @Test("Case 2003: Should get child_moved for any priority change, regardless of whether it affects ordering (2).")
    func childMovedForAnyPriorityChange2() throws {
        let (ember, _) = makeEmber(latency: 5)
        let node = ref(try connectedClient(ember, "main"), "node")
        var moved: [String] = []
        node.observe(.childMoved) { snapshot, _ in moved.append(snapshot.key ?? "") }
        try node.setValue([
            "a": [".value": "a", ".priority": 0], "b": [".value": "b", ".priority": 1],
            "c": [".value": "c", ".priority": 2], "d": [".value": "d", ".priority": 3],
        ])
        #expect(moved == [])
        try node.setValue([
            "a": [".value": "a", ".priority": 0], "b": [".value": "b", ".priority": 1.5],
            "c": [".value": "c", ".priority": 2], "d": [".value": "d", ".priority": 3],
        ])
        #expect(moved == ["b"])
    }
}
