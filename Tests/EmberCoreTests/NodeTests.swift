import EmberCore
import Testing

@Suite struct NodeTests {
    @Test func settingDeepPathsCreatesAndPrunesParents() throws {
        var node = Node.empty
        node.set(Node(.int(1)), at: "/a/b/c")
        #expect(node.jsonString() == #"{"a":{"b":{"c":1}}}"#)
        node.set(Node(.int(2)), at: "/a/d")
        node.set(.empty, at: "/a/b/c")
        #expect(node.jsonString() == #"{"a":{"d":2}}"#)
        node.set(.empty, at: "/a/d")
        #expect(node.isEmpty)
    }

    @Test func leafGainingAChildKeepsItsPriority() {
        let leaf = Node(.string("x"), priority: .number(3))
        let object = leaf.updatingChild("a", Node(.int(1)))
        #expect(object.priority == .number(3))
        #expect(object.jsonString(.export) == #"{"a":1,".priority":3}"#)
    }

    @Test func emptyNodesHaveNoPriority() {
        #expect(Node.empty.withPriority(.number(1)).priority == nil)
        let object = Node(children: [(ChildKey(unchecked: "a"), Node(.int(1)))], priority: .string("p"))
        #expect(object.updatingChild("a", .empty).priority == nil)
    }

    @Test func priorityThroughTheSpecialKey() {
        var node = Node(children: [(ChildKey(unchecked: "a"), Node(.int(1)))])
        node.set(Node(.int(7)), at: "/a/.priority")
        #expect(node.child("a").priority == .number(7))
        #expect(node.child(at: "/a/.priority") == Node(.int(7)))
        // A deep write below a prioritized object keeps its priority.
        node = node.withPriority(.string("top"))
        node.set(Node(.int(2)), at: "/a/b")
        #expect(node.priority == .string("top"))
        #expect(node.child("a").priority == .number(7))
    }

    @Test func updatingLeavesTheOriginalIntact() throws {
        let original = try Node(jsonText: #"{"users": {"alice": {"age": 30}, "bob": {"age": 20}}}"#)
        let changed = original.updating(at: "/users/alice/age", Node(.int(31)))
        #expect(original.child(at: "/users/alice/age") == Node(.int(30)))
        #expect(changed.child(at: "/users/alice/age") == Node(.int(31)))
        #expect(changed.child(at: "/users/bob") == original.child(at: "/users/bob"))
    }

    @Test func equalityIncludesPriorities() throws {
        #expect(try Node(jsonText: #"{"a": 1}"#) == Node(jsonText: #"{"a": 1.0}"#))
        #expect(try Node(jsonText: #"{"a": 1}"#) != Node(jsonText: #"{"a": {".value": 1, ".priority": 1}}"#))
        #expect(try Node(jsonText: "true") != Node(jsonText: "1"))
    }

    @Test func childrenIterateFromAnyPosition() throws {
        let node = try Node(jsonText: #"{"a":1,"b":2,"c":3,"d":4}"#)
        #expect(node.children(from: .from("b", inclusive: false)).map(\.key.name) == ["c", "d"])
        #expect(node.children(from: .downFrom("c", inclusive: true)).map(\.key.name) == ["c", "b", "a"])
        #expect(node.firstChild?.key == "a" && node.lastChild?.key == "d")
    }
}
