import EmberClient
import EmberCore
import EmberEngine
import EmberInstance
import EmberServer
import EmberTestSupport

/// Issue 8's contention workload: `clients` clients increment one counter with transactions,
/// each starting its next transaction when the last one committed, until `increments` have
/// committed between them.
struct TransactionBenchmarks {
    /// Committed increments per second, median of `runs` after a warm-up of a tenth of the size.
    func contention(clients: Int, increments: Int, runs: Int) -> Measurement {
        let times = Repetitions.measure(size: increments, runs: runs, minimum: clients) { once(clients: clients, increments: $0) }
        return .measured(.rate("increments/s", operations: increments, durations: times))
    }

    /// Issue 37's migration workload: one client starts `count` transactions on distinct
    /// locations (`records/r<i>/n`, each incremented) without waiting, then flushes: the time
    /// until every one has committed, median of `runs` after a warm-up of a tenth of the size.
    /// Before the fix it was quadratic (1,000, 2,000 and 4,000: 1.6 s, 5.9 s, 25.9 s).
    func inFlight(count: Int, runs: Int) -> Measurement {
        let times = Repetitions.measure(size: count, runs: runs, minimum: 1) { inFlightOnce(count: $0) }
        return .measured(.latency(durations: times))
    }

    /// One run of `inFlight` on a fresh in-memory instance.
    func inFlightOnce(count: Int) -> Duration {
        let ember = Ember(clock: SystemClock(), random: SeededRandom(seed: 5))
        let database = try! ember.client(named: "migration")
        try! ember.flush()
        var committed = 0
        let time = Stopwatch.measure {
            for index in 0..<count {
                try! database.reference("records/r\(index)/n").runTransaction({ current in
                    if case .int(let value) = current.leafValue { return .commit(Node(.int(value + 1))) }
                    return .commit(Node(.int(1)))
                }) { result in
                    if case .success(let outcome) = result, outcome.committed { committed += 1 }
                }
            }
            try! ember.flush()
        }
        precondition(committed == count, "every transaction committed (\(committed) of \(count))")
        precondition(ember.server.value(at: Path(unchecked: "records/r\(count - 1)/n")) == Node(.int(1)), "the last one landed")
        try! ember.close()
        return time
    }

    /// One run on a fresh in-memory instance; the time until every increment has committed.
    /// One run of `contention` (for profiling: `ember-bench counter CLIENTS N`).
    func once(clients count: Int, increments: Int) -> Duration {
        let ember = Ember(clock: SystemClock(), random: SeededRandom(seed: 4))
        let clients = (0..<count).map { try! ember.client(named: "c\($0)") }
        try! ember.flush()
        let counters = clients.map { try! $0.reference("counter") }
        var committed = 0
        var started = 0
        var failed = 0

        /// Starts client `index`'s next transaction; its completion starts the one after.
        func next(_ index: Int) {
            guard started < increments else { return }
            started += 1
            try! counters[index].runTransaction({ current in
                if case .int(let value) = current.leafValue { return .commit(Node(.int(value + 1))) }
                return .commit(Node(.int(1)))
            }) { result in
                switch result {
                case .success(let outcome) where outcome.committed: committed += 1
                case .success, .failure:
                    failed += 1
                    started -= 1
                }
                next(index)
            }
        }
        let time = Stopwatch.measure {
            for index in clients.indices { next(index) }
            try! ember.run { committed == increments }
        }
        try! ember.flush()
        precondition(ember.server.value(at: "counter") == Node(.int(Int64(increments))), "every increment counted once")
        try! ember.close()
        return time
    }
}
