import DequeModule
import EmberCore
@testable import EmberSync
import EmberTestSupport
import Testing

/// Where the visible pending writes are: the two questions ``WriteTree`` asks of a removed write
/// (``VisibleWriteIndex/meeting(_:removing:)``), checked against the same questions asked of a
/// plain list of (write, path) listings.
@Suite("VisibleWriteIndex")
struct VisibleWriteIndexTests {
    let paths: [Path] = ["", "a", "a/b", "a/b/c", "a/c", "b", "b/a", "ab"]

    /// Whether others overlap `path` (the same answer whichever write is removed).
    private func othersOverlap(_ index: VisibleWriteIndex, _ path: Path) -> Bool {
        let answers = [0, 1, 2, 3, 100].map { index.meeting(path, removing: WriteID($0)).othersOverlap }
        #expect(Set(answers).count == 1, "the overlap at \(path) does not depend on the write removed")
        return answers[0]
    }

    private func hasNewer(_ index: VisibleWriteIndex, than id: WriteID, atOrAbove path: Path) -> Bool {
        index.meeting(path, removing: id).newer
    }

    @Test func overlapsAndShadows() {
        var index = VisibleWriteIndex()
        index.add(WriteID(1), at: "a/b")
        #expect(!othersOverlap(index, "a/b"), "alone at its location")
        index.add(WriteID(2), at: "a/b/c")
        #expect(othersOverlap(index, "a/b"), "a write below")
        #expect(othersOverlap(index, "a/b/c"), "a write above")
        #expect(!othersOverlap(index, "a/c"))
        #expect(hasNewer(index, than: WriteID(1), atOrAbove: "a/b") == false, "the newer one is below, not above")
        index.add(WriteID(3), at: "a")
        #expect(hasNewer(index, than: WriteID(1), atOrAbove: "a/b"))
        #expect(hasNewer(index, than: WriteID(2), atOrAbove: "a/b/c"))
        #expect(!hasNewer(index, than: WriteID(3), atOrAbove: "a/b/c"))
        index.remove(WriteID(3), at: "a")
        index.remove(WriteID(2), at: "a/b/c")
        #expect(!othersOverlap(index, "a/b"))
        index.remove(WriteID(1), at: "a/b")
        #expect(index.isEmpty, "emptied locations are pruned")
    }

    /// Random listings and removals (not always oldest first) against the plain list.
    @Test(arguments: 1...20) func agreesWithAList(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var index = VisibleWriteIndex()
        var model: [(id: WriteID, path: Path)] = []
        var next = 1
        for _ in 0..<300 {
            if model.isEmpty || random.next() % 3 != 0 {
                let path = paths[Int(random.next() % UInt64(paths.count))]
                index.add(WriteID(next), at: path)
                model.append((WriteID(next), path))
                next += 1
            } else {
                let position = random.next() % 4 == 0 ? Int(random.next() % UInt64(model.count)) : 0
                let removed = model.remove(at: position)
                index.remove(removed.id, at: removed.path)
            }
            for probe in paths {
                let at = model.filter { $0.path == probe }.count
                let others = at > 1 || model.contains { $0.path != probe && (probe.contains($0.path) || $0.path.contains(probe)) }
                #expect(othersOverlap(index, probe) == others, "overlap at \(probe)")
                for id in [0, next / 2, next] {
                    let newer = model.contains { $0.id > WriteID(id) && $0.path.contains(probe) }
                    #expect(hasNewer(index, than: WriteID(id), atOrAbove: probe) == newer, "newer than \(id) at or above \(probe)")
                }
            }
            #expect(index.isEmpty == model.isEmpty)
        }
    }
}
