import EmberClient
import EmberCore
import EmberEngine
import EmberInstance
import EmberServer
import EmberStorage
import EmberTestSupport
import Foundation

/// Issue 5's durability workloads, each beside plain SQLite (through GRDB, WAL, the same
/// `synchronous` setting) doing the closest equivalent in the same run: acknowledged writes
/// on a database directory, reopening a large server store, and restarting a client with a
/// long offline queue (its replay measured in a process of its own, for the peak memory).
struct DurabilityBenchmarks {
    let report: BenchReport
    let quick: Bool

    /// How many distinct leaves each writer cycles through (`bench/k0` … `bench/k999`).
    static let keysPerWriter = 1_000

    private var repetitions: Int { quick ? 1 : 5 }

    // MARK: Acknowledged durable writes (and plain SQLite upserts)

    /// Acknowledged writes per second with the stores in `normal` and `full` mode: one writer
    /// waiting for each answer, one writer and eight writers keeping 100 writes unanswered
    /// (group commit); in memory for reference; and plain SQLite upserting the same rows one
    /// transaction per write or per batch of the size of the group commits.
    func writes() {
        report.header("Acknowledged durable writes, beside plain SQLite upserts")
        let scale = quick ? 10 : 1
        for durability in [Durability.normal, .full] {
            let waiting = (durability == .normal ? 20_000 : 5_000) / scale
            let pipelined = (durability == .normal ? 100_000 : 50_000) / scale
            emberWrites(durability: durability, writers: 1, window: 1, count: waiting)
            emberWrites(durability: durability, writers: 1, window: 100, count: pipelined)
            emberWrites(durability: durability, writers: 8, window: 100, count: pipelined)
            rawUpserts(durability: durability, writers: 1, batch: 1, count: waiting)
            rawUpserts(durability: durability, writers: 1, batch: 100, count: pipelined)
            rawUpserts(durability: durability, writers: 8, batch: 800, count: pipelined)
        }
        emberWrites(durability: nil, writers: 1, window: 1, count: 100_000 / scale)
        emberWrites(durability: nil, writers: 1, window: 100, count: 100_000 / scale)
        emberWrites(durability: nil, writers: 8, window: 100, count: 100_000 / scale)
    }

    /// `count` leaf sets from `writers` clients (round robin over their own 1,000 leaves), each
    /// keeping at most `window` unanswered, on a fresh database directory in `durability` mode
    /// (`nil`: in memory); timed until every write is acknowledged and every store committed.
    func emberWrites(durability: Durability?, writers: Int, window: Int, count: Int) {
        let mode = durability.map { "`\($0)`" } ?? "in memory"
        let who = writers == 1 ? "1 writer" : "\(writers) writers"
        let wait = window == 1 ? "each write waits for its ack" : "up to \(window) unacknowledged each"
        median("Ember, \(mode), \(who), \(wait)", count: count) { count in
            emberWritesOnce(durability: durability, writers: writers, window: window, count: count)
        }
    }

    func emberWritesOnce(durability: Durability?, writers: Int, window: Int, count: Int) -> Duration {
        let directory = durability.map { _ in TemporaryDirectory.make("writes") }
        defer { directory.map(TemporaryDirectory.remove) }
        let ember: Ember
        if let durability, let directory {
            ember = try! Ember(
                persistence: .directory(directory, try! PersistenceSettings(durability: durability, clientCacheSize: 10_000_000)),
                clock: SystemClock(), random: SeededRandom(seed: 1))
        } else {
            ember = Ember(clock: SystemClock(), random: SeededRandom(seed: 1))
        }
        let clients = (0..<writers).map { try! ember.client(named: "w\($0)") }
        try! ember.flush()
        let keys = (0..<writers).map { writer in
            (0..<Self.keysPerWriter).map { try! clients[writer].reference(Self.path(writer: writer, of: writers, key: $0)) }
        }
        let perWriter = count / writers
        var sent = [Int](repeating: 0, count: writers)
        var failed = 0
        var done = 0
        // Each writer sends its next write as soon as an answer frees a place in its window,
        // from the answer's callback, as a client of Redis or Tarantool does when its reply
        // comes: the writers' next writes then reach the server together, as they would from
        // separate processes, rather than one by one between calls of `run`.
        func send(_ writer: Int) {
            let index = sent[writer]
            sent[writer] += 1
            try! keys[writer][index % Self.keysPerWriter].setValue(.int(Int64(index))) { error in
                done += 1
                if error != nil { failed += 1 }
                if sent[writer] < perWriter { send(writer) }
            }
        }
        let time = Stopwatch.measure {
            for writer in 0..<writers {
                while sent[writer] < min(window, perWriter) { send(writer) }
            }
            try! ember.run { done == writers * perWriter }
            // The clients' deferred changes (their caches) are committed inside the time.
            ember.commitClientStores()
        }
        precondition(failed == 0, "every write acknowledged: \(failed) failed")
        let leaves = writers * min(perWriter, Self.keysPerWriter)
        if let store = ember.server.store {
            precondition(try! store.rowCount() == leaves, "the server's store holds every leaf")
        }
        try! ember.close()
        return time
    }

    /// The row path of writer `writer`'s leaf `key`: `bench/k7`, or `bench/w3/k7` with several.
    static func path(writer: Int, of writers: Int, key: Int) -> String {
        writers == 1 ? "bench/k\(key)" : "bench/w\(writer)/k\(key)"
    }

    /// Plain SQLite: the rows the Ember workload ends up writing to the server's store (same
    /// paths, same order, JSON values), upserted `batch` per transaction.
    func rawUpserts(durability: Durability, writers: Int, batch: Int, count: Int) {
        let per = batch == 1 ? "one transaction per row" : "\(batch) rows per transaction"
        let shape = writers == 1 ? "" : " (\(writers) writers' rows)"
        median("SQLite, `\(durability)`, upsert into `leaves`\(shape), \(per)", count: count) { count in
            Self.rawUpsertsOnce(durability: durability, writers: writers, batch: batch, count: count)
        }
    }

    /// One run of ``rawUpserts(durability:writers:batch:count:)`` on a fresh file: its time.
    static func rawUpsertsOnce(durability: Durability, writers: Int, batch: Int, count: Int) -> Duration {
        let perWriter = count / writers
        var rows: [(path: String, value: String)] = []
        rows.reserveCapacity(count)
        for round in 0..<perWriter {
            for writer in 0..<writers {
                rows.append((path(writer: writer, of: writers, key: round % keysPerWriter), String(round)))
            }
        }
        let directory = TemporaryDirectory.make("raw")
        defer { TemporaryDirectory.remove(directory) }
        let database = RawSQLite(path: directory + "/raw.sqlite", durability: durability)
        database.createLeaves()
        let time = Stopwatch.measure { database.upsert(rows, batch: batch) }
        database.close()
        return time
    }

    // MARK: Reopening a large server store

    /// Reopens a server store of `leaves` leaves (`items/o0/k0` … 1,000 objects of
    /// `leaves / 1000` leaves), built once in one commit: through `ServerStore` + `load()`,
    /// through `Ember(persistence:)`, and plain SQLite reading every row.
    func reopen(leaves: Int) {
        report.header("Reopening a server store of \(Self.grouped(leaves)) leaves")
        let directory = TemporaryDirectory.make("reopen")
        defer { TemporaryDirectory.remove(directory) }
        let file = directory + "/server.sqlite"
        let objects = 1_000
        let perObject = leaves / objects
        let build = Stopwatch.measure { Self.buildReopenStore(file: file, leaves: leaves) }
        report.row("build it once: the tree in memory, then `ServerStore.commit` of every leaf in one transaction (`normal`)", total: build, operations: leaves)
        let settings = try! PersistenceSettings(durability: .normal, clientCacheSize: 10_000_000)
        let runs = quick ? 1 : 3
        median("`ServerStore(at:durability:)` + `load()`", count: leaves, unit: "leaves/s", repetitions: runs, warmUp: false) { _ in
            Stopwatch.measure {
                let store = try! ServerStore(at: .file(file), durability: .normal)
                let root = try! store.load().root
                precondition(root.child(ChildKey(unchecked: "items")).childCount == objects)
                try! store.close()
            }
        }
        median("`Ember(persistence: .directory(…))` (store, load, answers, server)", count: leaves, unit: "leaves/s", repetitions: runs, warmUp: false) { _ in
            Stopwatch.measure {
                let ember = try! Ember(persistence: .directory(directory, settings), clock: SystemClock(), random: SeededRandom(seed: 1))
                precondition(ember.server.value(at: "items/o0").childCount == perObject)
                try! ember.close()
            }
        }
        median("SQLite: `SELECT path, value FROM leaves ORDER BY path`, every row read as two strings", count: leaves, unit: "rows/s", repetitions: runs, warmUp: false) { _ in
            Stopwatch.measure {
                let database = RawSQLite(path: file, durability: .normal)
                precondition(database.readLeaves() == leaves)
                database.close()
            }
        }
    }

    /// Writes the reopen workload's server store: `items/o0/k0` … in 1,000 objects of
    /// `leaves / 1000` integer leaves, committed in one transaction (`normal`), then closed.
    static func buildReopenStore(file: String, leaves: Int) {
        let objects = 1_000
        let perObject = leaves / objects
        var items = Node.empty
        for object in 0..<objects {
            var node = Node.empty
            for key in 0..<perObject {
                node.setChild(ChildKey(unchecked: "k\(key)"), Node(.int(Int64(object * perObject + key))))
            }
            items.setChild(ChildKey(unchecked: "o\(object)"), node)
        }
        var root = Node.empty
        root.setChild(ChildKey(unchecked: "items"), items)
        let store = try! ServerStore(at: .file(file), durability: .normal)
        store.markChanged(.root)
        try! store.commit(root)
        precondition(try! store.rowCount() == leaves)
        try! store.close()
    }

    // MARK: Restarting a client with queued writes

    /// A client that queued `writes` sets offline (`queue/k0` …) restarts: the queue is read and
    /// replayed into its sync tree (timed, with the peak memory, in a process of its own per
    /// run), then it goes online and the server takes every write. Beside it, plain SQLite
    /// reading the queue's rows.
    func restart(writes: Int) {
        report.header("Restarting a client with \(Self.grouped(writes)) queued writes")
        let directory = TemporaryDirectory.make("restart")
        defer { TemporaryDirectory.remove(directory) }
        let settings = try! PersistenceSettings(durability: .normal, clientCacheSize: 10_000_000)
        let prepare = Stopwatch.measure {
            let ember = try! Ember(persistence: .directory(directory, settings), clock: SystemClock(), random: SeededRandom(seed: 1))
            let client = try! ember.client(named: "c", startOffline: true)
            for index in 0..<writes {
                try! client.reference("queue/k\(index)").setValue(.int(Int64(index)))
            }
            try! ember.flush()
            precondition(client.pendingWriteCount == writes)
            try! ember.close()
        }
        report.row("queue them offline (not part of the restart): \(Self.grouped(writes)) sets, then commit and close", total: prepare, operations: writes)

        let runs = quick ? 1 : 3
        var results: [ReplayResult] = []
        for run in 0..<runs {
            let copy = directory + "-run\(run)"
            try! FileManager.default.copyItem(atPath: directory, toPath: copy)
            results.append(Self.replayInChildProcess(directory: copy, writes: writes))
            TemporaryDirectory.remove(copy)
        }
        let restores = results.map(\.restore).sorted()
        let onlines = results.map(\.online).sorted()
        report.row(
            "restart: `Ember(persistence:)` + `client(named:startOffline: true)`, the queue read and replayed: "
                + "\(Self.rate(restores, count: writes, unit: "writes/s"))",
            total: restores[restores.count / 2], operations: writes)
        report.row(
            "then `goOnline()` until the server has acknowledged every write: \(Self.rate(onlines, count: writes, unit: "writes/s"))",
            total: onlines[onlines.count / 2], operations: writes)
        median("SQLite: `SELECT key, path, kind, value FROM writes ORDER BY seq`, every row read as strings", count: writes, unit: "rows/s", repetitions: runs, warmUp: false) { _ in
            Stopwatch.measure {
                let database = RawSQLite(path: directory + "/clients/c.sqlite", durability: .normal)
                precondition(database.readWrites() == writes)
                database.close()
            }
        }
        let peaks = results.map(\.peakAfterRestore).sorted()
        let growth = results.map { $0.peakAfterRestore - $0.residentBefore }.sorted()
        let onlinePeaks = results.map(\.peakAfterOnline).sorted()
        print()
        report.line(
            "peak resident memory of the replaying process (`VmHWM`, a process of its own, \(runs == 1 ? "1 run" : "median of \(runs) runs")): "
                + "\(Self.megabytes(peaks[peaks.count / 2])) after the restore, "
                + "\(Self.megabytes(growth[growth.count / 2])) above its resident size before opening "
                + "(\(growth[growth.count / 2] / writes) bytes per queued write); "
                + "\(Self.megabytes(onlinePeaks[onlinePeaks.count / 2])) after going online")
    }

    struct ReplayResult {
        var restore: Duration
        var online: Duration
        var residentBefore: Int
        var peakAfterRestore: Int
        var peakAfterOnline: Int
    }

    /// Runs `ember-bench durability-replay DIRECTORY WRITES` and reads its answer line.
    private static func replayInChildProcess(directory: String, writes: Int) -> ReplayResult {
        fflush(nil)  // nothing buffered is left for the child to inherit
        let process = Process()
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["durability-replay", directory, String(writes)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try! process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        precondition(process.terminationStatus == 0, "durability-replay failed: \(output)")
        let fields = output.split(whereSeparator: { $0 == " " || $0 == "\n" })
        precondition(fields.count == 6 && fields[0] == "replay", "durability-replay answered: \(output)")
        let numbers = fields.dropFirst().map { Int($0)! }
        return ReplayResult(
            restore: .nanoseconds(numbers[0]), online: .nanoseconds(numbers[1]), residentBefore: numbers[2],
            peakAfterRestore: numbers[3], peakAfterOnline: numbers[4])
    }

    /// The child's side: restarts the client of `directory` (its `writes` queued writes
    /// replayed), then takes it online until the queue is empty; prints
    /// `replay RESTORE_NS ONLINE_NS RSS_BEFORE PEAK_AFTER_RESTORE PEAK_AFTER_ONLINE`.
    static func replay(directory: String, writes: Int) {
        let residentBefore = ResidentMemory.bytes()
        let settings = try! PersistenceSettings(durability: .normal, clientCacheSize: 10_000_000)
        var ember: Ember?
        var client: EmberClient.Database?
        let restore = Stopwatch.measure {
            ember = try! Ember(persistence: .directory(directory, settings), clock: SystemClock(), random: SeededRandom(seed: 1))
            client = try! ember!.client(named: "c", startOffline: true)
        }
        precondition(client!.pendingWriteCount == writes, "every queued write restored: \(client!.pendingWriteCount)")
        let peakAfterRestore = ResidentMemory.peakBytes()
        let online = Stopwatch.measure {
            client!.goOnline()
            try! ember!.run { client!.pendingWriteCount == 0 }
        }
        let peakAfterOnline = ResidentMemory.peakBytes()
        precondition(try! ember!.server.store!.rowCount() == writes, "the server stored every write")
        try! ember!.close()
        print("replay \(nanoseconds(restore)) \(nanoseconds(online)) \(residentBefore) \(peakAfterRestore) \(peakAfterOnline)")
    }

    // MARK: Reporting

    /// Runs `once` (after an unmeasured warm-up of a tenth of the size, unless `warmUp` is
    /// false) `repetitions` times and reports the median run, with the range of the rates.
    private func median(
        _ name: String, count: Int, unit: String = "writes/s", repetitions: Int? = nil, warmUp: Bool = true,
        _ once: (Int) -> Duration
    ) {
        let repetitions = repetitions ?? self.repetitions
        let runs = warmUp
            ? Repetitions.measure(size: count, runs: repetitions, once).sorted()
            : (0..<repetitions).map { _ in once(count) }.sorted()
        report.row("\(name): \(Self.rate(runs, count: count, unit: unit))", total: runs[runs.count / 2], operations: count)
    }

    /// "31,200 writes/s (median of 5; 29,800–32,000)" for sorted run times.
    static func rate(_ runs: [Duration], count: Int, unit: String) -> String {
        let rates = runs.map { Int(Double(count) / $0.seconds) }
        let median = "**\(grouped(rates[rates.count / 2]))** \(unit)"
        if rates.count == 1 { return "\(median) (1 run)" }
        return "\(median) (median of \(rates.count); \(grouped(rates.last!))–\(grouped(rates.first!)))"
    }

    static func nanoseconds(_ time: Duration) -> Int {
        Int(time.components.seconds) * 1_000_000_000 + Int(time.components.attoseconds / 1_000_000_000)
    }

    static func megabytes(_ bytes: Int) -> String {
        "\(Int((Double(bytes) / 1_048_576).rounded())) MiB"
    }

    /// 1234567 as "1,234,567".
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }
}

/// Scratch directories under /tmp, removed after each workload.
enum TemporaryDirectory {
    static func make(_ name: String) -> String {
        var template = Array("/tmp/ember-bench-\(name)-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { buffer in
            guard let path = mkdtemp(buffer.baseAddress!) else { fatalError("cannot create a directory under /tmp") }
            return String(cString: path)
        }
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}
