import EmberClient
import EmberCore
import EmberInstance
import EmberServer
import EmberSync
import EmberTestSupport
import Testing

/// Issue 19's transaction cases, from Firebase's own tests and code
/// (firebase-js-sdk `packages/database/src/core/Repo.ts`: `repoRerunTransactionQueue`,
/// `repoSendTransactionQueue`; `packages/database-compat/test/transaction.test.ts`).
@Suite("Transaction batching")
struct TransactionBatchingTests {
    @Test("queued transactions on an uncached location all re-run, in order, each on the previous one's output")
    func queuedTransactionsAllRerun() throws {
        let (ember, _) = makeEmber(seed: 3, latency: 2)
        try ember.server.put(Node(.int(100)), at: "counter", hash: nil)
        let main = client(ember, "main")
        try ember.flush()
        var snapshots: [JSONValue] = []
        var committed = 0
        for _ in 0..<5 {
            try ref(main, "counter").runTransaction(increment) { result in
                if case .success(let outcome) = result, outcome.committed {
                    committed += 1
                    snapshots.append(outcome.snapshot.value)
                }
            }
        }
        try ember.run { committed == 5 }
        try ember.flush()
        #expect(ember.server.value(at: "counter") == Node(.int(105)))
        // transaction.test.ts "Merged transactions have correct snapshot": each gets its own result.
        #expect(snapshots == [.int(101), .int(102), .int(103), .int(104), .int(105)])
    }

    @Test(
        "five increments started before the first connection, on a counter the server has or not, all land",
        arguments: [nil, 100] as [Int64?])
    func queuedBeforeConnecting(start: Int64?) throws {
        for latency in [0, 2] as [Int64] {
            let (ember, _) = makeEmber(seed: 3, latency: latency)
            if let start { try ember.server.put(Node(.int(start)), at: "counter", hash: nil) }
            let main = client(ember, "main")
            var committed = 0
            for _ in 0..<5 {
                try ref(main, "counter").runTransaction(increment) { result in
                    if case .success(let outcome) = result, outcome.committed { committed += 1 }
                }
            }
            try ember.run { committed == 5 }
            try ember.flush()
            #expect(ember.server.value(at: "counter") == Node(.int((start ?? 0) + 5)), "latency \(latency)")
        }
    }

    @Test("three clients doing 20 increments each on an uncached counter end at 60")
    func contentionUncached() throws {
        let (ember, _) = makeEmber(seed: 11, latency: 3)
        let databases = (0..<3).map { client(ember, "c\($0)") }
        try ember.flush()
        var committed = 0
        var failures: [DatabaseError] = []
        for _ in 0..<20 {
            for database in databases {
                try ref(database, "counter").runTransaction(increment) { result in
                    switch result {
                    case .success(let outcome): if outcome.committed { committed += 1 }
                    case .failure(let error): failures.append(error)
                    }
                }
            }
        }
        try ember.run { committed + failures.count == 60 }
        try ember.flush()
        #expect(failures.isEmpty)
        #expect(committed == 60)
        #expect(ember.server.value(at: "counter") == Node(.int(60)))
    }

    @Test("a transaction keeps the node's priority (transaction.test.ts: \"Transaction doesn't change priority\")")
    func transactionKeepsPriority() throws {
        let (ember, _) = makeEmber(seed: 5)
        let main = client(ember, "main")
        try ref(main, "count").setValue(0, priority: .string("prio"))
        try ember.flush()
        var done = false
        try ref(main, "count").runTransaction(increment) { _ in done = true }
        try ember.run { done }
        try ember.flush()
        #expect(ember.server.value(at: "count") == Node(.int(1), priority: .string("prio")))
    }

    @Test("an update function that sets its own location aborts its transaction; the set stands and nothing is left pending")
    func updateFunctionThatSetsItsLocation() throws {
        let (ember, _) = makeEmber(seed: 6)
        let main = client(ember, "main")
        try ref(main, "count").setValue(1)
        try ember.flush()
        var outcome: Result<TransactionResult, DatabaseError>?
        var runs = 0
        try ref(main, "count").runTransaction({ current in
            runs += 1
            if runs == 1 { try? ref(main, "count").setValue(100) }
            return increment(current)
        }) { outcome = $0 }
        try ember.run { outcome != nil }
        try ember.flush()
        guard case .failure(let error)? = outcome else {
            Issue.record("the transaction should have been overridden: \(String(describing: outcome))")
            return
        }
        #expect(error.code == "overridden_by_set")
        #expect(ember.server.value(at: "count") == Node(.int(100)))
        #expect(main.pendingWriteCount == 0)
        #expect(main.runningTransactionCount == 0)
        #expect(main.cachedValue(at: "count") == nil || main.cachedValue(at: "count") == Node(.int(100)))
    }
}
