import EmberEngine
import EmberClient
import EmberCore
import EmberInstance
import EmberServer
import EmberSync
import EmberTestSupport
import EmberWire
import Testing

/// Three clients doing random writes, updates, removals and transactions while their
/// connections are cut cleanly, dropped silently and restored at random, under latency, in
/// virtual time. Seeded: a failure names its seed and replays exactly.
@Suite("Faults")
struct FaultTests {
    final class ClientState {
        let database: Database
        /// The last `items` value each listener saw.
        var shownItems: JSONValue = nil
        /// Connection tokens whose onDisconnect registration was sent, and whether acknowledged.
        var tokens: [String: Bool] = [:]

        init(_ database: Database) { self.database = database }
    }

    @Test("after random operations and faults, every client equals the server; every write completes once; every onDisconnect fires once per lost connection",
        arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func randomFaults(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let (ember, _) = makeEmber(seed: seed, latency: 4, disconnectTimeout: 2_000)
        ember.reconnectPolicy = ReconnectPolicy(initialDelay: 100, maximumDelay: 1_000, multiplier: 1.5)
        let states = (0..<3).map { ClientState(client(ember, "c\($0)")) }
        for state in states {
            let database = state.database
            ref(database, "items").observe(.value) { snapshot, _ in state.shownItems = snapshot.value }
            // On every connection, register an onDisconnect that counts its firing under a
            // token of its own, the way the presence code registers its cleanup.
            ref(database, ".info/connected").observe(.value) { snapshot, _ in
                guard snapshot.value == true else { return }
                let token = database.pushID()
                state.tokens[token] = false
                try! ref(database, "fired/\(token)").onDisconnect().setValue(.increment(1)) { error in
                    if error == nil { state.tokens[token] = true }
                }
            }
        }

        var completions: [Int: Int] = [:]
        var nextWrite = 0
        var committed = 0
        func track() -> Int {
            nextWrite += 1
            completions[nextWrite] = 0
            return nextWrite
        }
        for _ in 0..<400 {
            let state = states[Int(random.next() % 3)]
            let database = state.database
            let key = "k\(random.next() % 6)"
            switch random.next() % 100 {
            case 0..<30:
                let id = track()
                try ref(database, "items/\(key)").setValue(.int(Int64(random.next() % 1000))) { _ in completions[id]! += 1 }
            case 30..<40:
                let id = track()
                try ref(database, "items/\(key)").removeValue { _ in completions[id]! += 1 }
            case 40..<52:
                let id = track()
                let other = "k\(random.next() % 6)x"
                try ref(database, "items").updateChildValues([key: .int(Int64(random.next() % 1000)), other: ["n": 1]]) { _ in
                    completions[id]! += 1
                }
            case 52..<62:
                let id = track()
                try ref(database, "counter").runTransaction(increment) { result in
                    completions[id]! += 1
                    if case .success(let outcome) = result, outcome.committed { committed += 1 }
                }
            case 62..<67: database.goOffline()
            case 67..<75: database.goOnline()
            case 75..<79: ember.drop(database.name)
            case 79..<90: try ember.advance(by: Int64(random.next() % 40))
            default:
                for _ in 0..<(random.next() % 8) { ember.network.engine.step() }
            }
        }

        // Heal: everyone online until every queue is empty, then let the server notice every
        // dropped connection and every client hear the last changes.
        for state in states { state.database.goOnline() }
        try ember.run {
            states.allSatisfy { $0.database.connectionState == .connected && $0.database.pendingWriteCount == 0
                && $0.database.runningTransactionCount == 0 }
        }
        try ember.advance(by: 3_000)
        try ember.flush()

        let items = ember.server.value(at: "items")
        print("seed \(seed): \(nextWrite) writes, \(committed) commits, counter \(ember.server.value(at: "counter")), tokens \(states.map { $0.tokens.count }), items \(items.childCount)")
        for state in states {
            #expect(state.database.cachedValue(at: "items") == items, "seed \(seed): \(state.database.name)")
            #expect(state.shownItems == items.jsonValue(), "seed \(seed): \(state.database.name)")
        }
        #expect(completions.values.allSatisfy { $0 == 1 }, "seed \(seed): writes completed other than once")
        // A write or transaction whose answer was lost with its connection is sent again with
        // the same key: the server answers it as before instead of applying it twice, so the
        // counter counts exactly the commits.
        #expect(ember.server.value(at: "counter") == (committed > 0 ? Node(.int(Int64(committed))) : .empty), "seed \(seed)")

        // Every connection that registered its onDisconnect has ended except the current one:
        // end those too, then each acknowledged registration fired exactly once, and nothing
        // fired that was not registered.
        for state in states { state.database.goOffline() }
        try ember.flush()
        let fired = ember.server.value(at: "fired")
        for state in states {
            for (token, acknowledged) in state.tokens {
                let count = fired.child(ChildKey(unchecked: token)).leafValue
                if acknowledged {
                    #expect(count == .int(1), "seed \(seed): \(state.database.name) token \(token) fired \(String(describing: count))")
                } else {
                    // Sent, but its answer was lost: registered or not, never twice.
                    #expect(count == nil || count == .int(1), "seed \(seed)")
                }
            }
        }
        let known = Set(states.flatMap { $0.tokens.keys })
        #expect(fired.children.allSatisfy { known.contains($0.key.name) }, "seed \(seed)")
        #expect(ember.server.connectionIDs.isEmpty)
    }
}
