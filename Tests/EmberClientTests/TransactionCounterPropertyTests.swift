import EmberClient
import EmberCore
import EmberInstance
import EmberServer
import EmberSync
import EmberTestSupport
import Testing

/// Issue 37, item 1: queued transactions lost increments when the client had written the
/// location first. A re-run transaction's write went on top of the later ones' writes, so the
/// next transaction in the queue was not run again (its input looked unchanged) while the one
/// after it ran on the re-run one's output: `set(0)` and five increments ended at 4, with two
/// completions reporting the same value. Firebase re-runs every transaction still queued at
/// the location, in order, each on the previous one's output (firebase-js-sdk
/// `packages/database/src/core/Repo.ts`: `repoRerunTransactionQueue`, `repoSendTransactionQueue`).
@Suite("Transactions keep every increment")
struct TransactionCounterPropertyTests {
    /// Adds one to `n` in the value at the transaction's location (`/c` holds `{n, x}`, a
    /// transaction at `/c/n` sees the number itself).
    static func increment(_ current: Node, deep: Bool) -> Node {
        func number(_ node: Node) -> Int64 {
            if case .int(let value)? = node.leafValue { return value }
            return 0
        }
        if deep { return Node(.int(number(current) + 1)) }
        var next = current
        next.setChild("n", Node(.int(number(current.child("n")) + 1)))
        return next
    }

    @Test("set(0), then five queued increments: the counter ends at 5 and each completion sees its own value")
    func queuedAfterOwnWrite() throws {
        let (ember, _) = makeEmber(seed: 5, latency: 2)
        let database = client(ember, "solo")
        try ref(database, "x").setValue(0)
        try ember.flush()
        var runs: [String] = []
        var committed: [Int64] = []
        for index in 1...5 {
            try ref(database, "x").runTransaction({ current in
                runs.append("T\(index)(\(current.leafValue.map { "\($0)" } ?? "nil"))")
                return .commit(Self.increment(current, deep: true))
            }) { result in
                if case .success(let outcome) = result, outcome.committed, case .int(let value)? = outcome.snapshot.node.leafValue {
                    committed.append(value)
                }
            }
        }
        try ember.flush()
        #expect(ember.server.value(at: "x") == Node(.int(5)), "runs: \(runs)")
        #expect(committed == [1, 2, 3, 4, 5], "runs: \(runs)")
    }

    @Test("three clients, twenty increments each after set(0): 60", arguments: [0, 3])
    func threeClients(latency: Int64) throws {
        let (ember, _) = makeEmber(seed: 11, latency: latency)
        let databases = (0..<3).map { client(ember, "c\($0)") }
        // Each client writes the location first, with no listener: its cache forgets the value
        // once the server has it, and its first run is on nothing.
        for database in databases { try ref(database, "x").setValue(0) }
        try ember.flush()
        var committed = 0
        for database in databases {
            for _ in 0..<20 {
                try ref(database, "x").runTransaction({ .commit(Self.increment($0, deep: true)) }) { result in
                    if case .success(let outcome) = result, outcome.committed { committed += 1 }
                }
            }
        }
        try ember.flush()
        #expect(committed == 60)
        #expect(ember.server.value(at: "x") == Node(.int(Int64(committed))))
    }

    /// Random mixes of own writes beside the counter, other clients' writes and transactions,
    /// transactions at the counter's location and above it, aborts by overlapping sets, drops,
    /// going offline and back, with random latency. The counter must equal the number of
    /// committed increments; the values the committed completions report are exactly 1…N, each
    /// once; each completion sees the output of its own last run.
    @Test("seeded random mixes: the counter equals the commits reported", arguments: 1...24)
    func randomMixes(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) &* 0x9E37_79B9)
        let (ember, _) = makeEmber(seed: UInt64(seed), latency: Int64(random.next() % 5))
        let names = ["a", "b", "c"]
        let databases = names.map { client(ember, $0) }
        try ref(databases[0], "c").setNode(json(#"{"n":0}"#))
        try ember.flush()
        for database in databases { try ref(database, "c/n").setValue(0) }
        try ember.flush()

        var reported: [Int64] = []
        var ownOutputSeen = true
        var failures: [String] = []
        var pending = 0
        var log: [String] = []
        for step in 0..<120 {
            let which = Int(random.next() % 3)
            let database = databases[which]
            switch random.next() % 16 {
            case 0:
                log.append("\(step) \(names[which]) set c/x")
                // An own write beside the counter, under a transaction location (/c): it
                // aborts the waiting transactions at /c, as Firebase's set does.
                try ref(database, "c/x/\(step)").setValue(.int(Int64(step)))
            case 1:
                try ref(database, "other/\(step)").setValue(.int(Int64(step)))
            case 2:
                log.append("\(step) \(names[which]) drop")
                ember.drop(database.name)
            case 3:
                log.append("\(step) \(names[which]) offline/online")
                if database.connectionState == .offline { database.goOnline() } else { database.goOffline() }
            case 4:
                try ember.advance(by: Int64(random.next() % 50))
            default:
                let deep = random.next() % 2 == 0
                var lastOutput: Node?
                log.append("\(step) \(names[which]) T\(step) at \(deep ? "c/n" : "c")")
                pending += 1
                try ref(database, deep ? "c/n" : "c").runTransaction({ current in
                    let output = Self.increment(current, deep: deep)
                    lastOutput = output
                    log.append("  run T\(step) on \(current.jsonString()) -> \(output.jsonString())")
                    return .commit(output)
                }) { result in
                    pending -= 1
                    log.append("  done T\(step): \(result)")
                    switch result {
                    case .success(let outcome):
                        guard outcome.committed else { return }
                        if outcome.snapshot.node != lastOutput { ownOutputSeen = false }
                        let number = deep ? outcome.snapshot.node : outcome.snapshot.node.child("n")
                        if case .int(let value)? = number.leafValue { reported.append(value) }
                    case .failure(let error):
                        failures.append(error.code)
                    }
                }
            }
        }
        for database in databases where database.connectionState == .offline { database.goOnline() }
        try ember.run { pending == 0 }
        try ember.flush()
        let counter = ember.server.value(at: "c/n")
        #expect(counter == Node(.int(Int64(reported.count))), "failures: \(failures)")
        if counter != Node(.int(Int64(reported.count))) { print(log.joined(separator: "\n")) }
        #expect(reported.sorted() == (0..<reported.count).map { Int64($0 + 1) })
        #expect(ownOutputSeen)
        #expect(failures.allSatisfy { $0 == "overridden_by_set" }, "\(failures)")
        for database in databases {
            #expect(database.runningTransactionCount == 0)
        }
    }
}
