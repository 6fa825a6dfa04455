import EmberCore
import Testing

@testable import EmberStorage

@Suite("VisitedPaths")
struct VisitedPathsTests {
    @Test("each path is new once, before and after the list turns into a set", arguments: [3, 16, 17, 200])
    func newOnce(count: Int) {
        var visited = VisitedPaths()
        let paths = (0..<count).map { Path(keys: [ChildKey("bench"), ChildKey(unchecked: "w\($0)")]) }
        for path in paths {
            let first = visited.insert(path)
            #expect(first, "\(path) first")
        }
        for path in paths {
            let again = visited.insert(path)
            #expect(!again, "\(path) again")
        }
        // Equal paths made apart are the same path.
        let sameAsFirst = visited.insert(Path(keys: [ChildKey("bench"), ChildKey(unchecked: "w0")]))
        #expect(!sameAsFirst)
        let parent = visited.insert(Path(keys: [ChildKey("bench")]))
        #expect(parent)
        let parentAgain = visited.insert(Path(keys: [ChildKey("bench")]))
        #expect(!parentAgain)
    }
}
