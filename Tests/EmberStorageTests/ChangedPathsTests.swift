import EmberCore
import EmberTestSupport
import Testing

@testable import EmberStorage

@Suite("ChangedPaths")
struct ChangedPathsTests {
    /// A path of one to three keys from twelve, so that paths often lie one below
    /// another.
    private static func path(_ random: inout SeededRandom) -> Path {
        let depth = Int(random.next() % 3) + 1
        // String keys and integer keys (which sort first, by value), as paths hold them.
        return Path(keys: (0..<depth).map { _ in
            let value = random.next() % 12
            return ChildKey(unchecked: value < 6 ? "k\(value)" : "\(value * 7)")
        })
    }

    @Test("marks, touches and gives the outermost paths as a PathSet does, in the list and across its limit",
        arguments: [1, 2, 3, 4, 5], [8, ChangedPaths.defaultListLimit])
    func matchesPathSet(seed: UInt64, listLimit: Int) {
        var random = SeededRandom(seed: seed)
        var changed = ChangedPaths(listLimit: listLimit)
        var model = PathSet()
        var crossed = false
        for step in 0..<3_000 {
            switch random.next() % 20 {
            case 0:
                changed.removeAll()
                model.removeAll()
                crossed = false
            case 1...3:
                let probe = Self.path(&random)
                #expect(changed.touches(probe) == model.touches(probe), "step \(step): touches \(probe)")
            default:
                let path = Self.path(&random)
                changed.fold(path)
                model.fold(path)
            }
            #expect(changed.isEmpty == model.isEmpty, "step \(step)")
            #expect(Set(changed.outermost) == Set(model.outermost), "step \(step)")
            #expect(changed.outermost.count == model.outermost.count, "step \(step): no path twice")
            // In path order until the list has once held more than it may (then a set).
            if changed.outermost.count > listLimit { crossed = true }
            if !crossed {
                #expect(changed.outermost == changed.outermost.sorted(), "step \(step): in path order")
            }
        }
    }

    @Test("a path above marked ones replaces them; one below a marked one adds nothing")
    func outermostOnly() {
        var changed = ChangedPaths()
        changed.fold(Path(keys: [ChildKey("a"), ChildKey("b")]))
        changed.fold(Path(keys: [ChildKey("a"), ChildKey("c")]))
        changed.fold(Path(keys: [ChildKey("d")]))
        #expect(Set(changed.outermost) == [Path(keys: [ChildKey("a"), ChildKey("b")]), Path(keys: [ChildKey("a"), ChildKey("c")]), Path(keys: [ChildKey("d")])])
        changed.fold(Path(keys: [ChildKey("a")]))
        #expect(Set(changed.outermost) == [Path(keys: [ChildKey("a")]), Path(keys: [ChildKey("d")])])
        changed.fold(Path(keys: [ChildKey("a"), ChildKey("x"), ChildKey("y")]))
        #expect(changed.outermost.count == 2)
        #expect(changed.touches(Path(keys: [ChildKey("a"), ChildKey("z")])))
        #expect(changed.touches(.root))
        #expect(!changed.touches(Path(keys: [ChildKey("e")])))
        changed.fold(.root)
        #expect(changed.outermost == [.root])
        changed.removeAll()
        #expect(changed.isEmpty)
        #expect(changed.outermost.isEmpty)
    }

    @Test("more paths than the list holds, then an ancestor of them all", arguments: [ChangedPaths.defaultListLimit, ChangedPaths.defaultListLimit + 1, 500])
    func manyThenAncestor(count: Int) {
        var changed = ChangedPaths()
        for index in 0..<count { changed.fold(Path(keys: [ChildKey("bench"), ChildKey(unchecked: "k\(index)")])) }
        #expect(changed.outermost.count == count)
        #expect(changed.touches(Path(keys: [ChildKey("bench"), ChildKey(unchecked: "k\(count - 1)"), ChildKey("x")])))
        #expect(!changed.touches(Path(keys: [ChildKey("bench"), ChildKey(unchecked: "k\(count)")])))
        changed.fold(Path(keys: [ChildKey("bench")]))
        #expect(changed.outermost == [Path(keys: [ChildKey("bench")])])
    }
}
