import EmberCore
import Testing

@Suite struct CompoundWriteTests {
    private func node(_ text: String) -> Node { try! Node(jsonText: text) }

    @Test func deeperWritesUpdateTheShallowerOne() {
        let write = CompoundWrite.empty
            .adding(node(#"{"b": 1}"#), at: "/a")
            .adding(node("2"), at: "/a/c")
        #expect(write.completeNode(at: "/a") == node(#"{"b": 1, "c": 2}"#))
        #expect(write.completeNode(at: "/a/c") == node("2"))
        #expect(write.completeNode(at: "/a/missing") == .empty)
        #expect(write.completeNode(at: "/x") == nil)
    }

    @Test func shallowerWritesReplaceDeeperOnes() {
        let write = CompoundWrite.empty
            .adding(node("1"), at: "/a/b")
            .adding(node("2"), at: "/a/c")
            .adding(node(#"{"z": 3}"#), at: "/a")
        #expect(write.apply(to: .empty) == node(#"{"a": {"z": 3}}"#))
    }

    @Test func applyKeepsWhatIsNotWritten() {
        let base = node(#"{"a": {"b": 1, "c": 2}, "d": 4}"#)
        let write = CompoundWrite(merge: [("/a/b", node("10")), ("/e", node("5")), ("/d", .empty)])
        #expect(write.apply(to: base) == node(#"{"a": {"b": 10, "c": 2}, "e": 5}"#))
        #expect(!write.hasCompleteWrite(at: "/a"))
        #expect(write.hasCompleteWrite(at: "/a/b"))
        #expect(write.completeChildren.map(\.key.name) == ["d", "e"])
    }

    @Test func priorityWritesApplyToExistingData() {
        let write = CompoundWrite.empty.adding(node("7"), at: "/a/.priority")
        #expect(write.apply(to: node(#"{"a": 1}"#)).child("a").priority == .number(7))
        #expect(write.apply(to: .empty).isEmpty)
    }

    @Test func removingAndChildWrites() {
        let write = CompoundWrite.empty
            .adding(node("1"), at: "/a/b")
            .adding(node("2"), at: "/c")
        #expect(write.removing(at: "/a").apply(to: .empty) == node(#"{"c": 2}"#))
        #expect(write.child(at: "/a").apply(to: .empty) == node(#"{"b": 1}"#))
        // Below a complete write, the child is that write's subtree.
        let whole = CompoundWrite.empty.adding(node(#"{"x": {"y": 1}}"#), at: "/p")
        #expect(whole.child(at: "/p/x").completeNode(at: .root) == node(#"{"y": 1}"#))
        #expect(write.removing(at: .root).isEmpty)
    }

    @Test func immutableTreeFindsRootMostValues() {
        let tree = ImmutableTree<Int>.empty
            .setting(1, at: "/a")
            .setting(2, at: "/a/b/c")
            .setting(3, at: "/d")
        #expect(tree.findRootMostValue(on: "/a/b/c")?.value == 1)
        #expect(tree.findRootMostMatching(on: "/a/b/c") { $0 > 1 }?.path == "/a/b/c")
        #expect(tree.value(at: "/a/b") == nil)
        var visited: [String] = []
        tree.forEach { path, value in visited.append("\(path)=\(value)") }
        #expect(visited == ["/a/b/c=2", "/a=1", "/d=3"])
        #expect(tree.removingValue(at: "/a/b/c").subtree(at: "/a/b").isEmpty)
        let sum = tree.fold { _, value, children in (value ?? 0) + children.reduce(0) { $0 + $1.1 } }
        #expect(sum == 6)
        #expect(tree.first(on: "/a/b/c") { path, value in value == 2 ? path : nil } == "/a/b/c")
    }
}
