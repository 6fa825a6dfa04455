import EmberCore
import EmberTestSupport
import Testing

/// The set of paths the stores ask about ancestors: checked against a plain `Set<Path>` with
/// the same questions asked the slow way.
@Suite("PathSet")
struct PathSetTests {
    let universe: [Path] = ["", "a", "a/b", "a/b/c", "a/bc", "ab", "ab/c", "b", "b/a", "1", "1/2", "10"]

    @Test func insertRemoveContainsCovers() {
        var set = PathSet()
        #expect(set.isEmpty)
        let r1 = set.insert("a/b")
        #expect(r1)
        let r2 = set.insert("a/b")
        #expect(!r2, "already there")
        #expect(set.contains("a/b"))
        #expect(!set.contains("a"), "an ancestor is not a member")
        #expect(!set.contains("a/b/c"))
        #expect(set.covers("a/b/c"), "a descendant is covered")
        #expect(set.covers("a/b"))
        #expect(!set.covers("a"))
        #expect(!set.covers("ab/c"), "keys are compared whole, not as prefixes of text")
        let r3 = set.insert("a/b/c")
        #expect(r3)
        let r4 = set.remove("a/b")
        #expect(r4)
        let r5 = set.remove("a/b")
        #expect(!r5)
        #expect(set.contains("a/b/c"), "removing a path keeps its descendants")
        let r6 = set.remove("a/b/c")
        #expect(r6)
        #expect(set.isEmpty, "emptied nodes are pruned")
    }

    @Test func theRootCoversEverything() {
        var set = PathSet()
        set.insert(.root)
        #expect(set.covers("x/y"))
        #expect(set.outermost == [.root])
    }

    @Test func foldKeepsOutermostOnly() {
        var set = PathSet()
        let r7 = set.fold("a/b/c")
        #expect(r7)
        let r8 = set.fold("b")
        #expect(r8)
        let r9 = set.fold("a/b")
        #expect(r9, "an ancestor replaces its descendants")
        let r10 = set.fold("a/b/c")
        #expect(!r10, "a covered path is not added")
        let r11 = set.fold("b/a")
        #expect(!r11)
        #expect(Set(set.outermost) == ["a/b", "b"])
        #expect(!set.contains("a/b/c"))
    }

    /// Random operations against a `Set<Path>`: membership, coverage and the outermost members
    /// agree after every step.
    @Test(arguments: 1...20) func agreesWithASetOfPaths(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var set = PathSet()
        var model: Set<Path> = []
        for _ in 0..<200 {
            let path = universe[Int(random.next() % UInt64(universe.count))]
            switch random.next() % 3 {
            case 0:
                let inserted = set.insert(path)
                #expect(inserted == model.insert(path).inserted)
            case 1:
                let removed = set.remove(path)
                #expect(removed == (model.remove(path) != nil))
            default:
                // fold: added unless covered; then its descendants go.
                let covered = model.contains { $0.contains(path) }
                let folded = set.fold(path)
                #expect(folded == !covered)
                if !covered {
                    model = model.filter { !path.contains($0) }
                    model.insert(path)
                }
            }
            for probe in universe {
                #expect(set.contains(probe) == model.contains(probe))
                #expect(set.covers(probe) == model.contains { $0.contains(probe) })
            }
            let outermost = model.filter { member in !model.contains { $0 != member && $0.contains(member) } }
            #expect(Set(set.outermost) == outermost)
            #expect(set.isEmpty == model.isEmpty)
        }
    }
}
