import EmberCore
import EmberSync
import EmberTestSupport
import Testing

/// The pending writes: the visible layer kept in step with the list as writes come and go, and
/// the questions about many pending writes answered without a walk of the list per question.
@Suite("WriteTree")
struct WriteTreeTests {
    let server = json(#"{"a":{"b":1,"c":{"d":2},"x":3},"b":{"x":4,"y":5},"c":6}"#)
    let paths: [Path] = ["", "a", "a/b", "a/c", "a/c/d", "b", "b/x", "c"]

    /// Never pending: excluding it makes the tree layer its list of writes itself, the
    /// reference the visible layer is checked against.
    let nothing: Set<WriteID> = [WriteID(-1)]

    /// A random write among overlapping locations: sets (some hidden) and updates.
    /// With `deferring`, half the sets are deferred (made while no view looks).
    private func randomWrite(_ random: inout SeededRandom, id: Int, into tree: inout WriteTree, deferring: Bool = false) {
        let value = Node(.int(Int64(id)))
        switch random.next() % 4 {
        case 0, 1:
            let path = paths[Int(random.next() % UInt64(paths.count))]
            let visibility: WriteVisibility = random.next() % 5 == 0 ? .hidden : .visible
            tree.addOverwrite(value, at: path, id: WriteID(id), visibility: visibility, deferred: deferring && random.next() % 2 == 0)
        default:
            let base: Path = random.next() % 2 == 0 ? "" : "a"
            let children: [Path] = base.isEmpty ? ["a/b", "b", "c", "a/c/d"] : ["b", "c", "x", "c/d"]
            // Disjoint changed paths, as updates are validated to be.
            var chosen: [Path] = []
            for child in children.shuffled(using: &random).prefix(Int(random.next() % 3) + 1)
            where !chosen.contains(where: { $0.contains(child) || child.contains($0) }) {
                chosen.append(child)
            }
            tree.addMerge(chosen.map { ($0, value) }, at: base, id: WriteID(id))
        }
    }

    private func expectLayerMatchesList(_ tree: WriteTree, _ context: String) {
        for path in paths {
            let base = server.child(at: path)
            #expect(
                tree.completeEventCache(at: path, server: base) == tree.completeEventCache(at: path, server: base, excluding: nothing),
                "visible writes at \(path) \(context)")
            #expect(
                tree.completeEventCache(at: path, server: base, includingHidden: true)
                    == tree.completeEventCache(at: path, server: base, excluding: nothing, includingHidden: true),
                "every write at \(path) \(context)")
            #expect(tree.completeEventCache(at: path, server: nil) == tree.completeEventCache(at: path, server: nil, excluding: nothing))
        }
    }

    @Test("the visible layer stays the layering of the pending writes as they are answered oldest first", arguments: 1...20)
    func answeredOldestFirst(seed: Int) {
        var random = SeededRandom(seed: UInt64(seed))
        var tree = WriteTree()
        let count = Int(random.next() % 40) + 2
        for id in 1...count { randomWrite(&random, id: id, into: &tree) }
        expectLayerMatchesList(tree, "with \(count) writes (seed \(seed))")
        for id in 1...count {
            _ = tree.removeWrite(WriteID(id))
            expectLayerMatchesList(tree, "after write \(id) of \(count) was answered (seed \(seed))")
        }
        #expect(tree.allWrites.isEmpty)
    }

    @Test(
        "writes and answers interleave, some out of order: the layer matches the list throughout, with sets deferred or not",
        arguments: 1...10, [false, true])
    func interleaved(seed: Int, deferring: Bool) {
        var random = SeededRandom(seed: UInt64(seed) &* 31)
        var tree = WriteTree()
        var next = 1
        var pending: [Int] = []
        for _ in 0..<200 {
            if deferring && random.next() % 6 == 0 {
                // A view came: the deferred sets join the layer and its index, which the
                // answers that follow use.
                tree.applyDeferred()
                #expect(tree.deferredCount == 0)
            } else if pending.isEmpty || random.next() % 3 != 0 {
                randomWrite(&random, id: next, into: &tree, deferring: deferring)
                pending.append(next)
                next += 1
            } else {
                // Mostly the oldest, as the server answers; sometimes any (a revert).
                let index = random.next() % 4 == 0 ? Int(random.next() % UInt64(pending.count)) : 0
                _ = tree.removeWrite(WriteID(pending.remove(at: index)))
            }
            expectLayerMatchesList(tree, "(seed \(seed), pending \(pending))")
        }
    }

    @Test("sets deferred while no view looks are answered without entering the layer, and show to whatever asks meanwhile")
    func deferredSetsAnswered() {
        var tree = WriteTree()
        for id in 1...1_000 {
            tree.addOverwrite(json(String(id)), at: Path(stringLiteral: "w/k\(id % 10)"), id: WriteID(id), visibility: .visible, deferred: true)
        }
        #expect(tree.deferredCount == 1_000)
        // Asked before they are applied, the layer has them all, newest last.
        #expect(tree.completeEventCache(at: "w/k3", server: nil) == json("993"))
        #expect(tree.hasVisibleWrite(overlapping: "w"))
        for id in 1...500 {
            #expect(tree.removeWrite(WriteID(id)) == false, "no view saw write \(id): nothing to re-evaluate")
        }
        #expect(tree.deferredCount == 500)
        // A view comes: the rest enter the layer; answers then re-evaluate what they change.
        tree.applyDeferred()
        #expect(tree.deferredCount == 0)
        #expect(tree.completeEventCache(at: "w", server: .empty) == json(#"{"k0":1000,"k1":991,"k2":992,"k3":993,"k4":994,"k5":995,"k6":996,"k7":997,"k8":998,"k9":999}"#))
        for id in 501...990 { #expect(tree.removeWrite(WriteID(id)) == false, "write \(id) is written again later") }
        #expect(tree.removeWrite(WriteID(991)) == true)
        #expect(tree.completeEventCache(at: "w/k1", server: .empty) == .empty)
        // A deferred set stays deferred while older writes are answered around it.
        tree.addOverwrite(json("7"), at: "w/k1", id: WriteID(2_000), visibility: .visible, deferred: true)
        #expect(tree.completeEventCache(at: "w/k1", server: nil) == json("7"))
        for id in 992...1_000 {
            #expect(tree.removeWrite(WriteID(id)) == true)
            #expect(tree.deferredCount == 1)
            #expect(tree.completeEventCache(at: Path(stringLiteral: "w/k\(id % 10)"), server: json("0")) == json("0"))
            #expect(tree.completeEventCache(at: "w/k1", server: nil) == json("7"))
        }
        #expect(tree.removeWrite(WriteID(2_000)) == false)
        #expect(tree.allWrites.isEmpty && tree.deferredCount == 0 && tree.visibleWrites.isEmpty)
    }

    @Test("an update fully shadowed by later writes is answered without changing what shows")
    func shadowedUpdate() {
        var tree = WriteTree()
        tree.addMerge([("a", json("1")), ("b", json("2"))], at: "u", id: WriteID(1))
        tree.addOverwrite(json("3"), at: "u/a", id: WriteID(2), visibility: .visible)
        tree.addMerge([("b", json("4")), ("c", json("5"))], at: "u", id: WriteID(3))
        #expect(tree.removeWrite(WriteID(1)) == false, "both of its paths are written again later: nothing to re-evaluate")
        #expect(tree.completeEventCache(at: "u", server: .empty) == json(#"{"a":3,"b":4,"c":5}"#))
        #expect(tree.removeWrite(WriteID(2)) == true)
        #expect(tree.completeEventCache(at: "u", server: json(#"{"a":0}"#)) == json(#"{"a":0,"b":4,"c":5}"#))
    }

    /// 50,000 pending writes of each shape: before, every update answered walked and re-layered
    /// the whole list, and every question including hidden writes layered it (hours at this size).
    @Test("50,000 pending writes to one location: questions and answers do not walk the list", .timeLimit(.minutes(5)))
    func manyWritesToOneLocation() {
        let count = 50_000
        var tree = WriteTree()
        var id = 1
        for index in 0..<count {
            // What resolving an increment asks: the location's value with every write.
            let current = tree.completeEventCache(at: "c", server: nil, includingHidden: true)
            #expect(current == (index == 0 ? nil : Node(.int(Int64(index)))))
            tree.addOverwrite(Node(.int(Int64(index + 1))), at: "c", id: WriteID(id), visibility: .visible)
            id += 1
            tree.addMerge([("a", Node(.int(Int64(index)))), (Path(unchecked: "n\(index % 100)"), json("true"))], at: "u", id: WriteID(id))
            id += 1
        }
        #expect(tree.completeEventCache(at: "u/a", server: nil) == Node(.int(Int64(count - 1))))
        for answered in 1..<id - 2 {
            _ = tree.removeWrite(WriteID(answered))
        }
        #expect(tree.allWrites.count == 2)
        #expect(tree.completeEventCache(at: "c", server: nil) == Node(.int(Int64(count))))
        #expect(tree.completeEventCache(at: "u/a", server: nil) == Node(.int(Int64(count - 1))))
        #expect(tree.completeEventCache(at: "u/n0", server: nil) == nil, "only the last update's paths are still pending")
    }
}
