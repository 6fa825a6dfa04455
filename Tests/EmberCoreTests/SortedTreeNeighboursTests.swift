import EmberCore
import EmberTestSupport
import Testing

/// `SortedTree.entry(before:)` and `entry(after:)`: the nearest keys on either side, found in
/// one walk, for keys in the tree and between them, at every depth and at both ends.
@Suite struct SortedTreeNeighboursTests {
    @Test(arguments: [0, 1, 2, 32, 33, 100, 3_000])
    func neighboursMatchAScanOfTheSortedKeys(count: Int) {
        var tree = SortedTree<ChildKey, Int>()
        var random = SeededRandom(seed: UInt64(count) + 1)
        let values = Array(stride(from: 0, to: count * 3, by: 3))
        // Inserted out of order, so that nodes split anywhere, not only at the right edge.
        for value in values.shuffled(using: &random) { tree.updateValue(value, forKey: ChildKey(Int32(value))) }
        for probe in -2...(count * 3 + 2) {
            let key = ChildKey(Int32(probe))
            #expect(tree.entry(before: key)?.value == values.last { $0 < probe }, "before \(probe) of \(count)")
            #expect(tree.entry(after: key)?.value == values.first { $0 > probe }, "after \(probe) of \(count)")
        }
    }

    @Test func stringKeysInFirebaseOrder() {
        var tree = SortedTree<ChildKey, Int>()
        let names = ["-a", "0", "7", "10", "a", "b", "ba", "k1", "k10", "k2", "z"]
        for (index, name) in names.enumerated() { tree.updateValue(index, forKey: ChildKey(unchecked: name)) }
        // In key order: integers first, numerically, then strings by UTF-16 code unit.
        let ordered = ["0", "7", "10", "-a", "a", "b", "ba", "k1", "k10", "k2", "z"]
        for (position, name) in ordered.enumerated() {
            let key = ChildKey(unchecked: name)
            #expect(tree.entry(before: key)?.key.name == (position > 0 ? ordered[position - 1] : nil), "before \(name)")
            #expect(tree.entry(after: key)?.key.name == (position + 1 < ordered.count ? ordered[position + 1] : nil), "after \(name)")
        }
        #expect(tree.entry(before: ChildKey(unchecked: "c"))?.key.name == "ba")
        #expect(tree.entry(after: ChildKey(unchecked: "c"))?.key.name == "k1")
        #expect(SortedTree<ChildKey, Int>().entry(before: ChildKey(unchecked: "a")) == nil)
    }
}
