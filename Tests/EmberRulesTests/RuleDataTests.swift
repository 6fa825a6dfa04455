import EmberCore
@testable import EmberRules
import Testing

/// The data rules read: a tree with writes laid over it answers as the written tree would,
/// and a check keeps only the locations its rules read, enough to evaluate it again.
@Suite("RuleData")
struct RuleDataTests {
    private func json(_ text: String) -> Node { try! Node(jsonText: text) }

    @Test("an overlay answers at, below, above and beside its writes as the tree after them")
    func overlayMatchesTheWrittenTree() {
        let base = json(#"{"a": {"b": 1, "c": {"d": 2}}, "x": true}"#)
        let writes = [
            RuleData.Write("a/c", json(#"{"e": 3}"#)),
            RuleData.Write("a/c/f", json("4")),
            RuleData.Write("a/b", .empty),
            RuleData.Write("y/z", json(#""new""#)),
        ]
        var after = base
        for write in writes { after.set(write.node, at: write.path) }
        let overlay = RuleData.overlay(base, writes)
        for path: Path in [.root, "a", "a/b", "a/c", "a/c/d", "a/c/e", "a/c/f", "x", "y", "y/z", "q"] {
            #expect(overlay.node(at: path) == after.child(at: path), "at \(path)")
        }
        #expect(base == json(#"{"a": {"b": 1, "c": {"d": 2}}, "x": true}"#), "the base is not changed")
    }

    @Test("a later write replaces an earlier one at the same place")
    func laterWritesWin() {
        let overlay = RuleData.overlay(.empty, [RuleData.Write("a", json("1")), RuleData.Write("a", json("2"))])
        #expect(overlay.node(at: "a") == json("2"))
    }

    @Test("a check keeps only what its rules read: root.child().child() reads the leaf, not the root")
    func readsAreRecordedWhereTheRulesLooked() throws {
        let ruleset = try Ruleset(text: #"""
            {"rules": {"rooms": {"$room": {".write": "root.child('members').child($room).child(auth.uid).exists()",
                                           ".validate": "newData.hasChildren(['text'])"}}}}
            """#)
        let root = json(#"{"members": {"r1": {"alice": true}, "r2": {"bob": true}}, "big": {"a": 1, "b": 2}}"#)
        let request = RuleRequest(
            .write(["rooms/r1"]), auth: .object([("uid", .string("alice"))]), now: 0, data: .tree(root),
            newData: .overlay(root, [RuleData.Write("rooms/r1", json(#"{"text": "hi"}"#))]))
        var reads = RuleReads()
        let decisions = ruleset.decide(request, reads: &reads)
        #expect(decisions.map(\.allowed) == [true])
        let kept = request.keeping(reads)
        #expect(kept.root.recordedPaths == ["members/r1/alice"])
        #expect(kept.newRoot.recordedPaths == ["rooms/r1"])
        // Evaluated again from what was kept, traced, it comes out the same, with the same values.
        let traced = ruleset.decide(kept, tracing: true)
        #expect(traced.map(\.allowed) == [true])
        #expect(traced[0].explanation().contains { $0.contains("root.child('members').child($room).child(auth.uid).exists() → true") })
    }
}
