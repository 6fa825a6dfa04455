import EmberClient
import EmberCore
import EmberEngine
import EmberInstance
import EmberServer
import EmberStorage
import EmberTestSupport
import Foundation

/// Issue 18's bulk workloads on a database directory: a large `import` through the `ember`
/// binary, and a long offline queue of mixed writes, queued, then replayed after a restart.
struct BulkWriteBenchmarks {
    /// The `ember` to run `import` with.
    let ember: String?

    /// `ember --db DIR -c 'import /data FILE'` for a file of `children` children of about 50
    /// bytes each, from spawn to exit (the process opens the directory, parses the file, writes
    /// it as one write, waits for the server's answer and closes); the directory is fresh for
    /// every run, the file written beforehand (not timed).
    func importOnce(children: Int) -> Duration? {
        guard let ember else { return nil }
        let directory = TemporaryDirectory.make("import")
        defer { TemporaryDirectory.remove(directory) }
        let file = directory + "/import.json"
        var text = "{"
        text.reserveCapacity(children * 56)
        for index in 0..<children {
            if index > 0 { text += "," }
            text += #""c\#(index)":{"name":"child \#(index)","score":\#(index % 1_000),"on":true}"#
        }
        text += "}"
        _ = FileManager.default.createFile(atPath: file, contents: Data(text.utf8))
        let time = StartupBenchmarks.time([ember, "--db", directory + "/db", "-q", "-c", "import /data \(file)"])
        guard time != nil else { return nil }
        // The import landed whole (checked after the timing).
        let settings = try! PersistenceSettings(durability: .normal)
        let check = try! Ember(persistence: .directory(directory + "/db", settings), clock: SystemClock(), random: SeededRandom(seed: 1))
        precondition(check.server.value(at: "data").childCount == children, "the import landed whole")
        try! check.close()
        return time
    }

    /// The writes of the queue: a third sets of distinct children, a third updates of two paths
    /// (one of them the same each time), a third increments of one counter.
    static func write(_ index: Int, on client: Database) throws {
        switch index % 3 {
        case 0:
            try client.reference("queue/items/i\(index)").setValue(.int(Int64(index)))
        case 1:
            try client.reference("queue/totals").updateNodes([
                ("last", Node(.int(Int64(index)))), (Path(keys: ["seen", ChildKey(unchecked: "i\(index)")]), Node(.bool(true))),
            ])
        default:
            try client.reference("queue/counter").setNode(increment)
        }
    }

    /// One queue-and-replay run's times.
    struct QueueAndReplay {
        /// Queueing the writes offline, committed.
        let queue: Duration
        /// The restart and replay, until every write is answered and the instance closed.
        let replay: Duration
        /// The replay's phases: open and restore, online until all answered, flush, close.
        let phases: [Duration]
        /// The CPU time the replay took (user and system, all threads), in seconds.
        let replayCPU: Double
    }

    /// The CPU time this process has used so far, in seconds.
    static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static let increment = try! Node(jsonText: #"{".sv":{"increment":1}}"#)

    /// Queues `count` writes offline on a fresh directory (timed: every write made and the
    /// client's store committed), then restarts the instance and the client and takes it
    /// online until the server has acknowledged every write (timed: open, restore, send, all
    /// answered, committed). Returns both times.
    static func queueAndReplayOnce(count: Int) -> QueueAndReplay {
        let directory = TemporaryDirectory.make("queue")
        defer { TemporaryDirectory.remove(directory) }
        let settings = try! PersistenceSettings(durability: .normal)
        let queue = Stopwatch.measure {
            let ember = try! Ember(persistence: .directory(directory, settings), clock: SystemClock(), random: SeededRandom(seed: 1))
            let client = try! ember.client(named: "c", startOffline: true)
            for index in 0..<count { try! write(index, on: client) }
            try! ember.flush()
            precondition(client.pendingWriteCount == count)
            try! ember.close()
        }
        var phases: [Duration] = []
        let cpuBefore = processCPUSeconds()
        let replay = Stopwatch.measure {
            var lap = ContinuousClock.now
            func phase() {
                let now = ContinuousClock.now
                phases.append(now - lap)
                lap = now
            }
            let ember = try! Ember(persistence: .directory(directory, settings), clock: SystemClock(), random: SeededRandom(seed: 2))
            let client = try! ember.client(named: "c", startOffline: true)
            precondition(client.pendingWriteCount == count, "every queued write restored")
            phase()
            client.goOnline()
            try! ember.run { client.pendingWriteCount == 0 }
            phase()
            try! ember.flush()
            phase()
            try! ember.close()
            phase()
        }
        let replayCPU = processCPUSeconds() - cpuBefore
        // Every write landed, once (checked after the timing).
        let ember = try! Ember(persistence: .directory(directory, settings), clock: SystemClock(), random: SeededRandom(seed: 3))
        precondition(ember.server.value(at: "queue/counter") == Node(.int(Int64(count / 3))), "each increment counted once")
        precondition(ember.server.value(at: "queue/items").childCount == (count + 2) / 3)
        try! ember.close()
        return QueueAndReplay(queue: queue, replay: replay, phases: phases, replayCPU: replayCPU)
    }
}
