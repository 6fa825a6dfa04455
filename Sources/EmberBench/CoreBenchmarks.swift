import EmberCore
import EmberTestSupport

/// The EmberCore workloads of issue 2: a million children under one node.
struct CoreBenchmarks {
    let report: BenchReport

    /// Keys for `n` children: push IDs 1 ms apart (realistic) or decimal integers (array-like).
    enum KeyKind: String, CaseIterable {
        case pushID = "push IDs"
        case integer = "integer keys"
    }

    static func keys(_ kind: KeyKind, count: Int, seed: UInt64 = 42) -> [ChildKey] {
        switch kind {
        case .integer:
            return (0..<count).map { ChildKey(Int32($0)) }
        case .pushID:
            var generator = PushIDGenerator()
            var random = SeededRandom(seed: seed)
            let start: Int64 = 1_700_000_000_000
            // Ten IDs per millisecond, as a busy writer would produce.
            return (0..<count).map { ChildKey(unchecked: generator.next(now: start + Int64($0 / 10), using: &random)) }
        }
    }

    /// Inserts, look-ups and the limit query for `n` children.
    func run(n: Int, kind: KeyKind) {
        let keys = Self.keys(kind, count: n)
        var node = Node.empty
        let insert = Stopwatch.measure {
            for (index, key) in keys.enumerated() { node.setChild(key, Node(.int(Int64(index)))) }
        }
        report.row("insert \(n) children one at a time (\(kind.rawValue))", total: insert, operations: n)

        var found = 0
        let lookup = Stopwatch.measure {
            for key in keys where !node.child(key).isEmpty { found += 1 }
        }
        precondition(found == n)
        report.row("look up each child (\(kind.rawValue))", total: lookup, operations: n)

        let query = try! QueryParams().orderedBy(.key).limitedToLast(10)
        let repetitions = 10_000
        var last: [NamedNode] = []
        let limit = Stopwatch.measure {
            for _ in 0..<repetitions { last = query.filter(node) }
        }
        precondition(last.count == 10 && last.last!.key == keys.last!)
        report.row("limitToLast(10) by key (\(kind.rawValue))", total: limit, operations: repetitions)

        let priorityQuery = try! QueryParams().limitedToFirst(10)
        let first = Stopwatch.measure {
            for _ in 0..<repetitions { last = priorityQuery.filter(node) }
        }
        report.row("limitToFirst(10), default order (\(kind.rawValue))", total: first, operations: repetitions)
    }

    /// Resident memory per leaf for n children, measured as the growth of the process's RSS
    /// while building (keys made on the fly so that no other copy of them stays alive).
    func memory(n: Int, kind: KeyKind) {
        let before = ResidentMemory.bytes()
        var node = Node.empty
        switch kind {
        case .integer:
            for index in 0..<n { node.setChild(ChildKey(Int32(index)), Node(.int(Int64(index)))) }
        case .pushID:
            var generator = PushIDGenerator()
            var random = SeededRandom(seed: 9)
            for index in 0..<n {
                let key = ChildKey(unchecked: generator.next(now: 1_700_000_000_000 + Int64(index / 10), using: &random))
                node.setChild(key, Node(.int(Int64(index))))
            }
        }
        let after = ResidentMemory.bytes()
        precondition(node.childCount == n)
        report.line("resident memory per leaf (\(kind.rawValue), n = \(n)): \((after - before) / n) bytes")
        withExtendedLifetime(node) {}
    }

    /// Cost per insert as n doubles: it should grow with log n, not with n.
    func scaling() {
        for n in [125_000, 250_000, 500_000, 1_000_000, 2_000_000] {
            let keys = Self.keys(.pushID, count: n)
            var node = Node.empty
            let time = Stopwatch.measure {
                for (index, key) in keys.enumerated() { node.setChild(key, Node(.int(Int64(index)))) }
            }
            report.row("insert, n = \(n)", total: time, operations: n)
        }
    }

    /// Inserting while every previous version stays alive costs a path copy per insert.
    func persistent(n: Int) {
        let keys = Self.keys(.pushID, count: n)
        var node = Node.empty
        var versions: [Node] = []
        versions.reserveCapacity(n)
        let time = Stopwatch.measure {
            for (index, key) in keys.enumerated() {
                versions.append(node)  // keep the old version: the insert must not touch it
                node = node.updatingChild(key, Node(.int(Int64(index))))
            }
        }
        precondition(versions[n / 2].childCount == n / 2)
        report.row("insert keeping every version (persistent), n = \(n)", total: time, operations: n)
    }

    /// Random-order inserts (nodes split in half, so they are less full).
    func shuffled(n: Int) {
        var random = SeededRandom(seed: 5)
        let keys = Self.keys(.pushID, count: n).shuffled(using: &random)
        var node = Node.empty
        let time = Stopwatch.measure {
            for (index, key) in keys.enumerated() { node.setChild(key, Node(.int(Int64(index)))) }
        }
        report.row("insert \(n) children in random order", total: time, operations: n)
    }
}
