@testable import EmberCore
import EmberTestSupport
import Testing

/// A small object kept flat reads, compares, hashes, serializes, filters and changes exactly
/// as the same object kept as a tree of its children.
@Suite("Packed children")
struct PackedChildrenTests {
    static let keys = ["0", "1", "9", "10", "-1", "007", "a", "b", "ab", "é", "😀", "\u{E000}", "name", "x y", "2147483648"]

    private func randomLeaf(_ random: inout SeededRandom) -> Node {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return Node(.bool(Bool.random(using: &random)))
        case 1: return Node(.int([0, 1, -1, 63, -64, 64, 1 << 40, .max, .min].randomElement(using: &random)!))
        case 2: return Node(.int(Int64.random(in: -1_000_000...1_000_000, using: &random)))
        case 3: return Node(.double([0.5, -0.0, 1e300, -2.25, 5e-324, 3].randomElement(using: &random)!))
        case 4: return Node(.string(["", "a", "short", "a string longer than fifteen bytes", "é😀\u{0}", String(repeating: "z", count: 300)].randomElement(using: &random)!))
        default: return Node(.string("s\(Int.random(in: 0..<100, using: &random))"))
        }
    }

    /// Children for an object: leaves, and sometimes a small object packed itself.
    private func randomChildren(_ random: inout SeededRandom, depth: Int = 0) -> [(ChildKey, Node)] {
        var chosen = Self.keys.shuffled(using: &random).prefix(Int.random(in: 1...8, using: &random))
        chosen = chosen[...]
        return chosen.map { key in
            if depth < 2, Int.random(in: 0..<4, using: &random) == 0 {
                let nested = randomChildren(&random, depth: depth + 1)
                return (ChildKey(unchecked: key), Node(packing: nested)!)
            }
            return (ChildKey(unchecked: key), randomLeaf(&random))
        }
    }

    /// The same children as a tree all the way down.
    private func unpacked(_ children: [(ChildKey, Node)]) -> Node {
        Node(children: children.map { key, node in (key, node.childCount > 0 ? unpacked(node.children.map { ($0.key, $0.node) }) : node) })
    }

    @Test("random objects: every read, the hashes and the JSON match the tree's; changes land as on the tree", arguments: 0..<4)
    func matchesTheTree(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed))
        for _ in 0..<300 {
            let children = randomChildren(&random)
            let packed = try #require(Node(packing: children))
            let tree = unpacked(children)
            guard case .packed = packed.storage else {
                Issue.record("not packed")
                return
            }
            #expect(packed == tree && tree == packed)
            #expect(packed.hashValue == tree.hashValue)
            #expect(packed.childCount == tree.childCount)
            #expect(packed.children.map(\.key) == tree.children.map(\.key))
            #expect(packed.hashString(numbers: .exact) == tree.hashString(numbers: .exact))
            #expect(packed.jsonString() == tree.jsonString())
            #expect(packed.jsonString(.export) == tree.jsonString(.export))
            #expect(packed.firstChild?.key == tree.firstChild?.key && packed.lastChild?.key == tree.lastChild?.key)
            for key in Self.keys + [".priority", "missing"] {
                let key = ChildKey(unchecked: key)
                #expect(packed.child(key) == tree.child(key), "\(key)")
                #expect(packed.hasChild(key) == tree.hasChild(key))
            }
            let query = try QueryParams().orderedBy(.value).limitedToLast(2)
            #expect(query.filteredNode(packed) == query.filteredNode(tree))
            #expect(try QueryParams().orderedBy(.key).startingAt(.string("a")).filteredNode(packed) == (try QueryParams().orderedBy(.key).startingAt(.string("a")).filteredNode(tree)))
            // Changes: a child set, removed, set deep, a priority.
            let key = ChildKey(unchecked: Self.keys.randomElement(using: &random)!)
            let leaf = randomLeaf(&random)
            var a = packed, b = tree
            a.setChild(key, leaf)
            b.setChild(key, leaf)
            #expect(a == b)
            a.setChild(key, .empty)
            b.setChild(key, .empty)
            #expect(a == b)
            let deep = Path(keys: [key, "deeper", "still"])
            #expect(packed.updating(at: deep, leaf) == tree.updating(at: deep, leaf))
            let prioritized = packed.withPriority(Priority(.int(3)))
            #expect(prioritized == tree.withPriority(Priority(.int(3))))
            #expect(prioritized.child(key) == tree.child(key))
            #expect(packed.withoutPriorities == packed)
            #expect(packed.updating(at: Path(keys: [key, .priority]), Node(.int(1))) == tree.updating(at: Path(keys: [key, .priority]), Node(.int(1))))
        }
    }

    @Test("what cannot be packed is not: a child with a priority, a server value, a large object, more than 32 children")
    func refusals() {
        #expect(Node(packing: [("a", Node(.int(1), priority: Priority(.int(1))))]) == nil)
        #expect(Node(packing: [("a", Node(.deferred(.timestamp)))]) == nil)
        #expect(Node(packing: [("a", json(#"{"b":1}"#))]) == nil, "an object that is a tree")
        #expect(Node(packing: (0..<33).map { (ChildKey(Int32($0)), Node(.int(1))) }) == nil)
        #expect(Node(packing: (0..<32).map { (ChildKey(Int32($0)), Node(.int(1))) }) != nil)
        #expect(Node(packing: [("a", Node(.string(String(repeating: "x", count: 5000))))]) == nil)
        #expect(Node(packing: []) == nil)
        #expect(Node(packing: [("a", .empty)]) == nil)
    }
}
