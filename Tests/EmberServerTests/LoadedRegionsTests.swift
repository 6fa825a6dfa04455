import EmberCore
@testable import EmberServer
import Testing

/// The server's loaded regions: what covers a path, and which of its ancestors are known to
/// hold no leaf because a region lies below them.
@Suite("Loaded regions")
struct LoadedRegionsTests {
    private func region() -> LoadedRegions.Region { .init(bytes: 10, lastUse: 1) }

    @Test("no region: no ancestor is known")
    func empty() {
        let regions = LoadedRegions()
        #expect(regions.interiorDepth("a/b/c") == 0)
        #expect(regions.interiorDepth("") == 0)
        #expect(regions.covering("a") == nil)
    }

    @Test("the ancestors a region lies below are known, down to where the paths part")
    func ancestorsOfARegion() {
        var regions = LoadedRegions()
        regions.insert("a/b/c", region())
        #expect(regions.interiorDepth("a/b/d") == 3, "the root, a and a/b")
        #expect(regions.interiorDepth("a/b/d/e") == 3, "a/b/d is not: nothing was read below it")
        #expect(regions.interiorDepth("a/x") == 2)
        #expect(regions.interiorDepth("z/y") == 1, "the root only")
        #expect(regions.interiorDepth("a/b") == 2, "a path's own row is not an ancestor's")
        #expect(regions.interiorDepth("") == 0)
        // At or below the region, it covers the path (``ServerTree/ensureLoaded`` reads nothing).
        #expect(regions.covering("a/b/c/d")?.depth == 3)
    }

    @Test("one walk tells what covers a path, how many of its ancestors are known, and where the regions below it are")
    func lookAgreesWithTheSeparateQuestions() throws {
        var regions = LoadedRegions()
        regions.insert("a/b/c", region())
        regions.insert("a/b/e/f", region())
        regions.insert("x", region())
        for path: Path in ["", "a", "a/b", "a/b/c", "a/b/c/d", "a/b/d", "a/b/e", "a/q/r", "x", "x/y", "z", "z/y/w"] {
            switch regions.look(path) {
            case .covered(_, let depth):
                #expect(regions.covering(path)?.depth == depth, "\(path)")
            case .outside(let interior, let entry):
                #expect(regions.covering(path) == nil, "\(path)")
                #expect(interior == regions.interiorDepth(path), "\(path)")
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
        #expect(regions.interiorDepth("a/b/d") == 2, "a/q still lies below the root and a, not below a/b")
        regions.remove("a/q")
        #expect(regions.interiorDepth("a/b/d") == 0, "no entry is left in the trie")
        regions.insert("a/b/c", region())
        #expect(regions.insert("a", region()) == 10, "absorbed")
        #expect(regions.interiorDepth("a/b/d") == 1, "a is a region now (it may be a leaf): only the root is known")
        regions.remove("a")
        #expect(regions.interiorDepth("a/b/d") == 0)
    }
}
