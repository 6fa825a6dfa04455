import EmberClient
import EmberCore
import EmberInstance
import EmberServer
import EmberSync
import EmberTestSupport
import Testing

/// The transaction queue against a plain model (issue 19): several clients run random
/// transactions on one location, some aborting, some with `applyLocally` off, while sets on the
/// same location cancel them and clients go offline and back, with random latency. A watcher
/// that never writes records every value the server reaches. Each change it sees must be a set
/// (a reset) or the application of one or more transactions, each adding its own id once and
/// counting it; every transaction reported committed appears in exactly one change, none
/// reported otherwise appears at all, each one's completion snapshot is its own output, and in
/// the end every client holds the server's value.
@Suite("Transaction queue against a model")
struct TransactionDifferentialTests {
    /// `{n: count, ids: {t…: true}, r: reset}`.
    struct Counter: Equatable {
        var n: Int64
        var ids: Set<String>
        var reset: Int64

        init(_ node: Node) {
            n = node.child("n").leafValue.flatMap { if case .int(let value) = $0 { value } else { nil } } ?? 0
            ids = Set(node.child("ids").children.map(\.key.name))
            reset = node.child("r").leafValue.flatMap { if case .int(let value) = $0 { value } else { nil } } ?? 0
        }
    }

    @Test("random transactions, aborts, applyLocally off, cancelling sets, disconnects: the model holds", arguments: 1...12)
    func randomQueues(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) &* 2_654_435_761)
        let (ember, _) = makeEmber(seed: UInt64(seed), latency: Int64(random.next() % 6))
        let clients = (0..<3).map { client(ember, "c\($0)") }
        let watcher = client(ember, "watcher")
        var seen: [Counter] = []
        _ = ref(watcher, "c").observe(.value) { snapshot, _ in seen.append(Counter(snapshot.node)) }
        try ember.flush()

        var committed: [String: Counter] = [:]
        var notCommitted: Set<String> = []
        var pending = 0
        var resets: Int64 = 0
        for step in 0..<60 {
            let database = clients[Int(random.next() % 3)]
            switch random.next() % 20 {
            case 0:
                resets += 1
                try ref(database, "c").setNode(json(#"{"n":0,"r":\#(resets)}"#))
            case 1:
                if database.connectionState == .offline { database.goOnline() } else { database.goOffline() }
            default:
                let id = "t\(step)"
                let aborts = random.next() % 5 == 0
                let visible = random.next() % 5 != 0
                pending += 1
                try ref(database, "c").runTransaction(applyLocally: visible, { current in
                    if aborts { return .abort }
                    var next = current
                    let counter = Counter(current)
                    next.set(Node(.int(counter.n + 1)), at: "n")
                    next.set(Node(.bool(true)), at: Path(keys: ["ids", ChildKey(unchecked: id)]))
                    return .commit(next)
                }) { result in
                    pending -= 1
                    if case .success(let outcome) = result, outcome.committed {
                        committed[id] = Counter(outcome.snapshot.node)
                    } else {
                        notCommitted.insert(id)
                    }
                }
            }
            if random.next() % 3 == 0 { try ember.advance(by: Int64(random.next() % 8)) }
        }
        for database in clients where database.connectionState == .offline { database.goOnline() }
        try ember.run { pending == 0 }
        try ember.flush()

        // Every change the watcher saw is a reset or adds transactions, each counted once.
        var appliedIn: [String: Int] = [:]
        for (index, (before, after)) in zip(seen, seen.dropFirst()).enumerated() {
            if after.reset != before.reset {
                #expect(after.n == 0 && after.ids.isEmpty, "a reset: \(after)")
                continue
            }
            let added = after.ids.subtracting(before.ids)
            #expect(before.ids.isSubset(of: after.ids), "a transaction's id vanished without a reset")
            #expect(!added.isEmpty, "a change that is neither a reset nor a transaction: \(before) → \(after)")
            #expect(after.n == before.n + Int64(added.count), "each transaction counted once")
            for id in added {
                #expect(appliedIn[id] == nil, "\(id) applied twice")
                appliedIn[id] = index + 1
            }
        }
        for (id, snapshot) in committed {
            guard let index = appliedIn[id] else {
                Issue.record("\(id) was reported committed but never reached the server")
                continue
            }
            // Its own output: its id in it, counted, and nothing the server had not applied by then.
            #expect(snapshot.ids.contains(id) && snapshot.n == Int64(snapshot.ids.count), "\(id)'s snapshot \(snapshot)")
            #expect(snapshot.ids.isSubset(of: seen[index].ids), "\(id)'s snapshot holds ids the server did not have")
        }
        for id in notCommitted { #expect(appliedIn[id] == nil, "\(id) was not committed but reached the server") }
        #expect(Set(appliedIn.keys) == Set(committed.keys))
        let final = ember.server.value(at: "c")
        #expect(seen.last == Counter(final))
        for database in clients { #expect(database.cachedValue(at: "c") == nil || database.cachedValue(at: "c") == final) }
        #expect(committed.count > 10, "the run committed enough to mean something: \(committed.count)")
    }
}
