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
        #expect(set.insert("a/b"))
        #expect(!set.insert("a/b"), "already there")
        #expect(set.contains("a/b"))
        #expect(!set.contains("a"), "an ancestor is not a member")
        #expect(!set.contains("a/b/c"))
        #expect(set.covers("a/b/c"), "a descendant is covered")
        #expect(set.covers("a/b"))
        #expect(!set.covers("a"))
        #expect(!set.covers("ab/c"), "keys are compared whole, not as prefixes of text")
        #expect(set.insert("a/b/c"))
        #expect(set.remove("a/b"))
        #expect(!set.remove("a/b"))
        #expect(set.contains("a/b/c"), "removing a path keeps its descendants")
        #expect(set.remove("a/b/c"))
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
        #expect(set.fold("a/b/c"))
        #expect(set.fold("b"))
        #expect(set.fold("a/b"), "an ancestor replaces its descendants")
        #expect(!set.fold("a/b/c"), "a covered path is not added")
        #expect(!set.fold("b/a"))
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
            case 0: #expect(set.insert(path) == model.insert(path).inserted)
            case 1: #expect(set.remove(path) == (model.remove(path) != nil))
            default:
                // fold: added unless covered; then its descendants go.
                let covered = model.contains { $0.contains(path) }
                #expect(set.fold(path) == !covered)
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
