@testable import EmberCore
import EmberTestSupport
import Testing

@Suite struct SortedTreeTests {
    /// Checks the B-tree's invariants: sorted entries, separators between children, counts,
    /// node sizes, and all leaves at one depth.
    private func checkInvariants(_ tree: SortedTree<ChildKey, Int>) {
        guard let root = tree.root else { return }
        var leafDepths = Set<Int>()
        func visit(_ node: SortedTreeNode<ChildKey, Int>, depth: Int, low: ChildKey?, high: ChildKey?) -> Int {
            #expect(node.entries.count <= SortedTree<ChildKey, Int>.maxEntries)
            #expect(!node.entries.isEmpty)
            for (a, b) in zip(node.entries, node.entries.dropFirst()) { #expect(a.key < b.key) }
            if let low { #expect(low < node.entries.first!.key) }
            if let high { #expect(node.entries.last!.key < high) }
            var count = node.entries.count
            if node.children.isEmpty {
                leafDepths.insert(depth)
            } else {
                #expect(node.children.count == node.entries.count + 1)
                for (index, child) in node.children.enumerated() {
                    let childLow = index == 0 ? low : node.entries[index - 1].key
                    let childHigh = index == node.entries.count ? high : node.entries[index].key
                    count += visit(child, depth: depth + 1, low: childLow, high: childHigh)
                }
            }
            #expect(node.count == count)
            return count
        }
        _ = visit(root, depth: 0, low: nil, high: nil)
        #expect(leafDepths.count == 1)
    }

    @Test func randomInsertsAndRemovesMatchAReference() {
        var random = SeededRandom(seed: 7)
        var tree = SortedTree<ChildKey, Int>()
        var reference: [ChildKey: Int] = [:]
        for step in 0..<20_000 {
            let key = ChildKey(unchecked: String(Int.random(in: 0..<3000, using: &random)) + (step % 3 == 0 ? "x" : ""))
            if Int.random(in: 0..<3, using: &random) == 0 {
                #expect(tree.removeValue(forKey: key) == reference.removeValue(forKey: key))
            } else {
                #expect(tree.updateValue(step, forKey: key) == reference.updateValue(step, forKey: key))
            }
            if step % 2000 == 0 { checkInvariants(tree) }
        }
        checkInvariants(tree)
        #expect(tree.count == reference.count)
        let expected = reference.sorted { $0.key < $1.key }
        #expect(tree.map(\.key) == expected.map(\.key))
        #expect(tree.map(\.value) == expected.map(\.value))
        for (key, value) in reference { #expect(tree[key] == value) }
        // Remove everything.
        for key in reference.keys.shuffled(using: &random) { tree.removeValue(forKey: key) }
        #expect(tree.isEmpty)
    }

    @Test func ascendingInsertsFillNodes() {
        var tree = SortedTree<ChildKey, Int>()
        for index in 0..<10_000 { tree.updateValue(index, forKey: ChildKey(Int32(index))) }
        checkInvariants(tree)
        var leaves = 0
        func countLeaves(_ node: SortedTreeNode<ChildKey, Int>) {
            if node.children.isEmpty { leaves += 1 } else { node.children.forEach(countLeaves) }
        }
        countLeaves(tree.root!)
        // Full leaves hold 31 entries plus one separator per leaf above them.
        #expect(leaves <= 10_000 / 31 + 2)
    }

    @Test(arguments: [0, 1, 31, 32, 33, 64, 1_000])
    func sortedElementsBuildAValidTree(count: Int) {
        let keys = (0..<count).map { ChildKey(unchecked: "k\(1_000_000 + $0)") }
        let tree = SortedTree<ChildKey, Int>(sorted: keys.enumerated().map { (key: $0.element, value: $0.offset) })
        checkInvariants(tree)
        #expect(tree.count == count)
        #expect(tree.map(\.key) == keys)
        #expect(tree.map(\.value) == Array(0..<count))
        for (index, key) in keys.enumerated() { #expect(tree[key] == index) }
        // Up to a node's worth is one leaf, made as it came.
        if count > 0 && count <= SortedTree<ChildKey, Int>.maxEntries {
            #expect(tree.root!.children.isEmpty)
            #expect(tree.root!.entries.count == count)
        }
        // It changes like any tree.
        var copy = tree
        copy.updateValue(-1, forKey: "a")
        copy.removeValue(forKey: keys.first ?? "a")
        checkInvariants(copy)
        #expect(tree.count == count)
    }

    @Test func versionsAreIndependent() {
        var original = SortedTree<ChildKey, Int>()
        for index in 0..<1000 { original.updateValue(index, forKey: ChildKey(Int32(index))) }
        var changed = original
        // A key that is not there: nothing removed, nothing copied or counted.
        #expect(changed.removeValue(forKey: "absent") == nil)
        #expect(changed.root === original.root)
        changed.updateValue(-1, forKey: 500)
        #expect(changed.removeValue(forKey: "absent") == nil)
        #expect(changed.count == 1000)
        changed.removeValue(forKey: 10)
        changed.updateValue(7, forKey: "new")
        #expect(original[500] == 500)
        #expect(original[10] == 10)
        #expect(original["new"] == nil)
        #expect(original.count == 1000)
        #expect(changed[500] == -1 && changed[10] == nil && changed["new"] == 7)
        #expect(changed.count == 1000)
        checkInvariants(original)
        checkInvariants(changed)
    }

    @Test func positionalAccess() {
        var tree = SortedTree<ChildKey, Int>()
        for index in stride(from: 0, to: 2000, by: 2) { tree.updateValue(index, forKey: ChildKey(Int32(index))) }
        for offset in [0, 1, 31, 32, 500, 999] {
            #expect(tree.element(at: offset).value == offset * 2)
        }
        #expect(tree.rank(of: 0) == 0)
        #expect(tree.rank(of: 1) == 1)
        #expect(tree.rank(of: 1998) == 999)
        #expect(tree.rank(of: 5000) == 1000)
        #expect(tree.first?.value == 0)
        #expect(tree.last?.value == 1998)
    }

    @Test func cursorsStartAnywhereInBothDirections() {
        var tree = SortedTree<ChildKey, Int>()
        let values = Array(stride(from: 0, to: 3000, by: 3))
        for value in values { tree.updateValue(value, forKey: ChildKey(Int32(value))) }
        for probe in [-1, 0, 1, 2, 3, 4, 93, 94, 95, 96, 1500, 2997, 2998, 5000] {
            let key = ChildKey(Int32(probe))
            let from = Array(tree.entries(from: .from(key, inclusive: true)).prefix(5).map(\.value))
            #expect(from == Array(values.filter { $0 >= probe }.prefix(5)), "from \(probe)")
            let after = Array(tree.entries(from: .from(key, inclusive: false)).prefix(5).map(\.value))
            #expect(after == Array(values.filter { $0 > probe }.prefix(5)), "after \(probe)")
            let down = Array(tree.entries(from: .downFrom(key, inclusive: true)).prefix(5).map(\.value))
            #expect(down == Array(values.filter { $0 <= probe }.reversed().prefix(5)), "down from \(probe)")
            let below = Array(tree.entries(from: .downFrom(key, inclusive: false)).prefix(5).map(\.value))
            #expect(below == Array(values.filter { $0 < probe }.reversed().prefix(5)), "below \(probe)")
            var firstCursor = tree.entries(from: .firstWhere { $0.integerValue! >= probe })
            let firstWhere = firstCursor.next()?.value
            #expect(firstWhere == values.first { $0 >= probe })
            var lastCursor = tree.entries(from: .lastWhere { $0.integerValue! <= probe })
            let lastWhere = lastCursor.next()?.value
            #expect(lastWhere == values.last { $0 <= probe })
        }
        #expect(Array(tree.entries(from: .end).map(\.value)) == values.reversed())
        #expect(Array(tree.map(\.value)) == values)
    }
}
