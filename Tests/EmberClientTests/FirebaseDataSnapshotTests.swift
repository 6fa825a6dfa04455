import EmberClient
import EmberCore
import EmberInstance
import EmberServer
import EmberSync
import EmberTestSupport
import Testing

/// Ports of firebase-js-sdk `packages/database-compat/test/datasnapshot.test.ts`, each test named
/// after its `it(...)`. Firebase builds its snapshots straight from JSON with the priority
/// index (`snapshotForJSON`); here the JSON is written on an offline client and the snapshot is
/// the one its value listener gets, in the same (priority) order.
@Suite("Firebase datasnapshot.test.ts")
struct FirebaseDataSnapshotTests {
    /// The snapshot a listener gets after `json` is written at a fresh location.
    private func snapshotForJSON(_ json: JSONValue) throws -> DataSnapshot {
        let (ember, _) = makeEmber()
        let node = ref(client(ember, "main", startOffline: true), "node")
        var snapshot: DataSnapshot?
        node.observe(.value) { value, _ in snapshot = value }
        try node.setNode(try Node(json: json))
        return try #require(snapshot)
    }

    // datasnapshot.test.ts: 'DataSnapshot.hasChildren() works.'
    @Test("DataSnapshot.hasChildren() works.")
    func hasChildren() throws {
        #expect(try snapshotForJSON([:]).hasChildren == false)
        #expect(try snapshotForJSON(5).hasChildren == false)
        #expect(try snapshotForJSON(["x": 5]).hasChildren == true)
    }

    // datasnapshot.test.ts: 'DataSnapshot.exists() works.'
    @Test("DataSnapshot.exists() works.")
    func exists() throws {
        #expect(try snapshotForJSON([:]).exists == false)
        #expect(try snapshotForJSON([".priority": 1]).exists == false)
        #expect(try snapshotForJSON(nil).exists == false)
        #expect(try snapshotForJSON(true).exists == true)
        #expect(try snapshotForJSON(5).exists == true)
        #expect(try snapshotForJSON(["x": 5]).exists == true)
    }

    // datasnapshot.test.ts: 'DataSnapshot.val() works.'
    @Test("DataSnapshot.val() works.")
    func value() throws {
        #expect(try snapshotForJSON(5).value == 5)
        #expect(try snapshotForJSON([:]).value == .null)
        let json: JSONValue = ["x": 5, "y": ["ya": 1, "yb": 2, "yc": ["yca": 3]]]
        #expect(try snapshotForJSON(json).value == json)
    }

    // datasnapshot.test.ts: 'DataSnapshot.child() works.'
    @Test("DataSnapshot.child() works.")
    func child() throws {
        let snap = try snapshotForJSON(["x": 5, "y": ["yy": 3, "yz": 4]])
        #expect(try snap.child("x").value == 5)
        #expect(try snap.child("y").value == ["yy": 3, "yz": 4])
        #expect(try snap.child("y").child("yy").value == 3)
        #expect(try snap.child("y/yz").value == 4)
        #expect(try snap.child("z").value == .null)
        #expect(try snap.child("x/y").value == .null)
        #expect(try snap.child("x").child("y").value == .null)
    }

    // datasnapshot.test.ts: 'DataSnapshot.hasChild() works.'
    @Test("DataSnapshot.hasChild() works.")
    func hasChild() throws {
        let snap = try snapshotForJSON(["x": 5, "y": ["yy": 3, "yz": 4]])
        #expect(try snap.hasChild("x") == true)
        #expect(try snap.hasChild("y/yy") == true)
        #expect(try snap.hasChild("dinosaur") == false)
        #expect(try snap.child("x").hasChild("anything") == false)
        #expect(try snap.hasChild("x/anything/at/all") == false)
    }

    // datasnapshot.test.ts: 'DataSnapshot.key works.'
    @Test("DataSnapshot.key works.")
    func key() throws {
        let snap = try snapshotForJSON(["a": ["b": ["c": 5]]])
        #expect(try snap.child("a").key == "a")
        #expect(try snap.child("a/b/c").key == "c")
        #expect(try snap.child("/a/b/c/").key == "c")
        #expect(try snap.child("////a////b/c///").key == "c")
        #expect(try snap.child("///").key == snap.key)
        // Also for paths with no data.
        #expect(try snap.child("/z/q/r/v/m").key == "m")
    }

    private func forEachOutput(_ snap: DataSnapshot) -> String {
        snap.children.map { "\($0.key ?? ""):\(numberText($0.value)):" }.joined()
    }

    private func numberText(_ value: JSONValue) -> String {
        if case .int(let number) = value { return "\(number)" }
        return value.serialized()
    }

    // datasnapshot.test.ts: 'DataSnapshot.forEach() works: no priorities.'
    @Test("DataSnapshot.forEach() works: no priorities.")
    func forEachNoPriorities() throws {
        let snap = try snapshotForJSON(["a": 1, "z": 26, "m": 13, "n": 14, "c": 3, "b": 2, "e": 5])
        #expect(forEachOutput(snap) == "a:1:b:2:c:3:e:5:m:13:n:14:z:26:")
    }

    // datasnapshot.test.ts: 'DataSnapshot.forEach() works: numeric priorities.'
    @Test("DataSnapshot.forEach() works: numeric priorities.")
    func forEachNumericPriorities() throws {
        let snap = try snapshotForJSON([
            "a": [".value": 1, ".priority": 26], "z": [".value": 26, ".priority": 1],
            "m": [".value": 13, ".priority": 14], "n": [".value": 14, ".priority": 12],
            "c": [".value": 3, ".priority": 24], "b": [".value": 2, ".priority": 25],
            "e": [".value": 5, ".priority": 22],
        ])
        #expect(forEachOutput(snap) == "z:26:n:14:m:13:e:5:c:3:b:2:a:1:")
    }

    // datasnapshot.test.ts: 'DataSnapshot.forEach() works: numeric priorities as strings.'
    @Test("DataSnapshot.forEach() works: numeric priorities as strings.")
    func forEachNumericPrioritiesAsStrings() throws {
        let snap = try snapshotForJSON([
            "a": [".value": 1, ".priority": "26"], "z": [".value": 26, ".priority": "1"],
            "m": [".value": 13, ".priority": "14"], "n": [".value": 14, ".priority": "12"],
            "c": [".value": 3, ".priority": "24"], "b": [".value": 2, ".priority": "25"],
            "e": [".value": 5, ".priority": "22"],
        ])
        #expect(forEachOutput(snap) == "z:26:n:14:m:13:e:5:c:3:b:2:a:1:")
    }

    // datasnapshot.test.ts: 'DataSnapshot.forEach() works: alpha priorities.'
    @Test("DataSnapshot.forEach() works: alpha priorities.")
    func forEachAlphaPriorities() throws {
        let snap = try snapshotForJSON([
            "a": [".value": 1, ".priority": "first"], "z": [".value": 26, ".priority": "second"],
            "m": [".value": 13, ".priority": "third"], "n": [".value": 14, ".priority": "fourth"],
            "c": [".value": 3, ".priority": "fifth"], "b": [".value": 2, ".priority": "sixth"],
            "e": [".value": 5, ".priority": "seventh"],
        ])
        #expect(forEachOutput(snap) == "c:3:a:1:n:14:z:26:e:5:b:2:m:13:")
    }

    // datasnapshot.test.ts: 'DataSnapshot.foreach() works: mixed alpha and numeric priorities'
    @Test("DataSnapshot.foreach() works: mixed alpha and numeric priorities")
    func forEachMixedPriorities() throws {
        let snap = try snapshotForJSON([
            "alpha42": [".value": 1, ".priority": "zed"], "noPriorityC": [".value": 1, ".priority": nil],
            "num41": [".value": 1, ".priority": 500], "noPriorityB": [".value": 1, ".priority": nil],
            "num80": [".value": 1, ".priority": 4000.1], "num50": [".value": 1, ".priority": 4000],
            "num10": [".value": 1, ".priority": 24], "alpha41": [".value": 1, ".priority": "zed"],
            "alpha20": [".value": 1, ".priority": "horse"], "num20": [".value": 1, ".priority": 123],
            "num70": [".value": 1, ".priority": 4000.01], "noPriorityA": [".value": 1, ".priority": nil],
            "alpha30": [".value": 1, ".priority": "tree"], "num30": [".value": 1, ".priority": 300],
            "num60": [".value": 1, ".priority": 4000.001], "alpha10": [".value": 1, ".priority": "0horse"],
            "num42": [".value": 1, ".priority": 500], "alpha40": [".value": 1, ".priority": "zed"],
            "num40": [".value": 1, ".priority": 500],
        ])
        #expect(snap.childKeys.map { "\($0), " }.joined() == "noPriorityA, noPriorityB, noPriorityC, num10, num20, num30, num40, num41, num42, num50, num60, num70, num80, alpha10, alpha20, alpha30, alpha40, alpha41, alpha42, ")
    }

    // datasnapshot.test.ts: '.val() exports array-like data as arrays.'
    @Test(".val() exports array-like data as arrays.")
    func arrays() throws {
        let array: JSONValue = ["bob", "and", "becky", "seem", "really", "nice", "yeah?"]
        let value = try snapshotForJSON(array).value
        #expect(value == array)
        guard case .array = value else {
            Issue.record("not an array: \(value)")
            return
        }
    }

    // datasnapshot.test.ts: 'DataSnapshot can be JSON serialized' (`toJSON()` is `exportVal()`).
    @Test("DataSnapshot can be JSON serialized")
    func jsonSerialized() throws {
        let snap = try snapshotForJSON(["foo": "bar", ".priority": 1])
        #expect(snap.exportValue == ["foo": "bar", ".priority": 1])
    }
}
