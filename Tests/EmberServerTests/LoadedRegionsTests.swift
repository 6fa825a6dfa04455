import EmberCore
@testable import EmberServer
import Testing

/// The server's loaded regions: what covers a path, and which of its ancestors are known to
/// hold no leaf because a region lies below them.
@Suite("Loaded regions")
struct LoadedRegionsTests {
    private func region() -> LoadedRegions.Region { .init(bytes: 10, lastUse: 1) }

    /// How many of `path`'s ancestors ``LoadedRegions/look(_:)`` says are known (`nil`: a
    /// region covers it).
    private func interiorDepth(_ regions: LoadedRegions, _ path: Path) -> Int? {
        guard case .outside(let depth, _) = regions.look(path) else { return nil }
        return depth
    }

    @Test("no region: no ancestor is known")
    func empty() {
        let regions = LoadedRegions()
        #expect(interiorDepth(regions, "a/b/c") == 0)
        #expect(interiorDepth(regions, "") == 0)
        #expect(regions.covering("a") == nil)
    }

    @Test("the ancestors a region lies below are known, down to where the paths part")
    func ancestorsOfARegion() {
        var regions = LoadedRegions()
        regions.insert("a/b/c", region())
        #expect(interiorDepth(regions, "a/b/d") == 3, "the root, a and a/b")
        #expect(interiorDepth(regions, "a/b/d/e") == 3, "a/b/d is not: nothing was read below it")
        #expect(interiorDepth(regions, "a/x") == 2)
        #expect(interiorDepth(regions, "z/y") == 1, "the root only")
        #expect(interiorDepth(regions, "a/b") == 2, "a path's own row is not an ancestor's")
        #expect(interiorDepth(regions, "") == 0)
        // At or below the region, it covers the path (``ServerTree/ensureLoaded`` reads nothing).
        #expect(regions.covering("a/b/c/d")?.depth == 3)
        #expect(interiorDepth(regions, "a/b/c/d") == nil)
    }

    @Test("one walk tells what covers a path, how many of its ancestors are known, and where the regions below it are")
    func lookAnswersTheThreeQuestions() throws {
        var regions = LoadedRegions()
        regions.insert("a/b/c", region())
        regions.insert("a/b/e/f", region())
        regions.insert("x", region())
        // The ancestors known for each path outside every region (the root, then each entry on
        // the way down with a region below it).
        let known: [Path: Int] = ["": 0, "a": 1, "a/b": 2, "a/b/d": 3, "a/b/e": 3, "a/q/r": 2, "z": 1, "z/y/w": 1]
        for path: Path in ["", "a", "a/b", "a/b/c", "a/b/c/d", "a/b/d", "a/b/e", "a/q/r", "x", "x/y", "z", "z/y/w"] {
            switch regions.look(path) {
            case .covered(_, let depth):
                #expect(regions.covering(path)?.depth == depth, "\(path)")
                #expect(known[path] == nil, "\(path) is covered")
            case .outside(let interior, let entry):
                #expect(regions.covering(path) == nil, "\(path)")
                #expect(interior == known[path], "\(path)")
                let below = entry.map(regions.regions(below:)) ?? []
                #expect(below.map(\.path).sorted() == regions.regions(below: path).map(\.path).sorted(), "\(path)")
            }
        }
        guard case .outside(3, let entry?) = regions.look("a/b/e") else { Issue.record("a/b/e has a region below it"); return }
        #expect(regions.regions(below: entry).map(\.path) == ["f"])
        guard case .outside(2, nil) = regions.look("a/q/r") else { Issue.record("a/q/r: the root and a are known"); return }
    }

    @Test("a region removed or absorbed by one above takes its knowledge with it")
    func knowledgeGoesWithTheRegion() {
        var regions = LoadedRegions()
        regions.insert("a/b/c", region())
        regions.insert("a/q", region())
        regions.remove("a/b/c")
        #expect(interiorDepth(regions, "a/b/d") == 2, "a/q still lies below the root and a, not below a/b")
        regions.remove("a/q")
        #expect(interiorDepth(regions, "a/b/d") == 0, "no entry is left in the trie")
        regions.insert("a/b/c", region())
        #expect(regions.insert("a", region()) == 10, "absorbed")
        #expect(interiorDepth(regions, "a/b/d") == nil, "a covers it now (a region, perhaps a leaf)")
        #expect(interiorDepth(regions, "b/c") == 1, "beside a, only the root is known")
        regions.remove("a")
        #expect(interiorDepth(regions, "a/b/d") == 0)
    }
}
