import EmberClient
import EmberCore
import EmberEngine
import EmberInstance
import EmberRules
import EmberServer
import EmberStorage
import EmberTestSupport
import Foundation

/// Issue 8's instrument: every workload, Ember beside the peers people would pick instead, in
/// one run, into one ``ComparisonTable``.
///
/// `scripts/bench` starts the peers' servers (loopback only) and passes where they are; a peer
/// that is missing or does not answer is reported as not measured, never silently dropped.
struct ComparisonRun {
    /// Where the peers are, and what else the run needs.
    struct Setup {
        var quick = false
        /// The workload groups to run; all of them when empty.
        var only: Set<String> = []
        /// An in-memory Redis (no persistence) on loopback.
        var redis: RedisPeer?
        /// A Redis with `appendonly yes`, `appendfsync always`.
        var redisAlwaysFsync: RedisPeer?
        /// The Unix socket of the in-memory Redis, for `redis-cli EVAL` (the Lua workload).
        var redisSocket: String?
        var tarantool: TarantoolPeer?
        /// The release `ember`, for the start-up and Lua workloads.
        var ember: String?
        /// This program, to measure memory in a process of its own.
        var bench: String
        /// Whether peers are measured at all (`--no-peers`: Ember alone, as CI runs it).
        var peers = true
    }

    /// The workload groups, in the order they run.
    static let groups = ["writes", "durable", "bulk", "fanout", "network", "query", "transactions", "reopen", "startup", "memory", "lua", "scale"]

    let setup: Setup
    let table = ComparisonTable()

    private var quick: Bool { setup.quick }
    private var runs: Int { quick ? 1 : 5 }

    func wants(_ group: String) -> Bool { setup.only.isEmpty || setup.only.contains(group) }

    /// Runs every wanted group and prints the table.
    func run() {
        if wants("writes") { writes() }
        if wants("durable") { durable() }
        if wants("bulk") { bulk() }
        if wants("fanout") { fanOut() }
        if wants("network") { network() }
        if wants("query") { query() }
        if wants("transactions") { transactions() }
        if wants("reopen") { reopen() }
        if wants("startup") { startup() }
        if wants("memory") { memory() }
        if wants("lua") { lua() }
        if wants("scale") { scale() }
        print(table.render())
    }

    // MARK: Peers

    /// Runs `body` on the peer, or says why it is not measured.
    private func measure<Peer>(_ peer: Peer?, missing: String, _ body: (Peer) -> Measurement) -> Measurement {
        guard setup.peers else { return .notMeasured("peers off (--no-peers)") }
        guard let peer else { return .notMeasured(missing) }
        return body(peer)
    }

    private func redis(_ body: (RedisPeer) -> Measurement) -> Measurement {
        measure(setup.redis, missing: "no redis-server on loopback", body)
    }

    private func redisAlways(_ body: (RedisPeer) -> Measurement) -> Measurement {
        measure(setup.redisAlwaysFsync, missing: "no redis-server with appendfsync always", body)
    }

    private func tarantool(_ body: (TarantoolPeer) -> Measurement) -> Measurement {
        measure(setup.tarantool, missing: "tarantool is not installed", body)
    }

    private func sqlite(_ body: (SQLitePeer) -> Measurement) -> Measurement {
        measure(SQLitePeer(), missing: "", body)
    }

    /// Ember's durations as a figure: one warm-up of a tenth of `count`, then `runs` runs.
    private func ember(_ unit: String, count: Int, runs: Int? = nil, _ once: (Int) -> Duration) -> Measurement {
        let durations = Repetitions.measure(size: count, runs: runs ?? self.runs, once)
        return .measured(.rate(unit, operations: count, durations: durations))
    }

    // MARK: Workloads

    /// Acknowledged leaf writes with a listener on a second client.
    private func writes() {
        let count = quick ? 20_000 : 200_000
        let throughput = ThroughputBenchmarks(report: BenchReport())
        let waiting = ember("writes/s", count: count) { throughput.acknowledgedWritesOnce(count: $0, window: 1) }
        table.add(
            group: "writes", workload: "leaf sets, each acknowledged before the next, a second client listening (in-process)",
            ember: waiting,
            peers: [
                .init(peer: "Redis `SET`, 1 client (redis-benchmark, loopback TCP)", measurement: redis { $0.setThroughput(clients: 1, pipeline: 1, requests: count / 4, runs: runs) }),
                .init(peer: "Redis `SET`, 50 clients", measurement: redis { $0.setThroughput(clients: 50, pipeline: 1, requests: count, runs: runs) }),
            ])
        let rules = try! Ruleset(text: ThroughputBenchmarks.tenRules)
        let guarded = ember("writes/s", count: count) { throughput.acknowledgedWritesOnce(count: $0, window: 1, rules: rules) }
        table.add(
            group: "writes",
            workload: "the same with ten security rules (`$wildcards`, `auth` checks; `.write` and `.validate` evaluated per write), both clients signed in",
            ember: guarded,
            peers: [.init(peer: "Ember without rules (the row above, this run); target: at least 0.8×", measurement: waiting)])
        let pipelined = ember("writes/s", count: count) { throughput.acknowledgedWritesOnce(count: $0, window: 1_000) }
        table.add(
            group: "writes", workload: "leaf sets, up to 1,000 unacknowledged, a second client listening",
            ember: pipelined,
            peers: [
                .init(peer: "Redis `SET`, 1 client, pipeline of 1,000", measurement: redis { $0.setThroughput(clients: 1, pipeline: 1_000, requests: count * 5, runs: runs) }),
            ])
    }

    /// Acknowledged writes that are on disk (`normal`: in the WAL; `full`: fsynced) first.
    private func durable() {
        let durability = DurabilityBenchmarks(report: BenchReport(), quick: quick)
        let scale = quick ? 10 : 1
        for mode in [Durability.normal, .full] {
            let waiting = (mode == .normal ? 20_000 : 5_000) / scale
            let inFlight = (mode == .normal ? 100_000 : 50_000) / scale
            let walMode = mode == .normal ? "write" : "fsync"
            let shapes = [
                (writers: 1, window: 1, count: waiting, name: "1 writer, each write waits for its ack"),
                (writers: 8, window: 1, count: waiting, name: "8 writers, each write waits for its ack"),
                (writers: 1, window: 100, count: inFlight, name: "1 writer, up to 100 unacknowledged (group commit)"),
            ]
            for shape in shapes {
                let figure = ember("writes/s", count: shape.count) {
                    durability.emberWritesOnce(durability: mode, writers: shape.writers, window: shape.window, count: $0)
                }
                var peers: [ComparisonTable.PeerResult] = []
                if shape.writers == 1 {
                    // SQLite has one writer at a time: no row for 8 writers.
                    let rows = shape.window == 1 ? "one row per transaction" : "\(shape.window) rows per transaction"
                    peers.append(.init(peer: "SQLite WAL, exclusive locking, `synchronous=\(RawSQLite.synchronous(mode))`, \(rows)", measurement: sqlite { _ in
                        .measured(.rate("writes/s", operations: shape.count, durations: Repetitions.measure(size: shape.count, runs: runs) {
                            DurabilityBenchmarks.rawUpsertsOnce(durability: mode, writers: 1, batch: shape.window, count: $0)
                        }))
                    }))
                }
                if shape.window == 1 {
                    let fibers = shape.writers == 1 ? "1 fiber, one replace per transaction" : "\(shape.writers) fibers"
                    peers.append(.init(peer: "Tarantool `wal_mode='\(walMode)'`, \(fibers)", measurement: tarantool {
                        $0.writes(walMode: walMode, fibers: shape.writers, count: shape.count, runs: runs)
                    }))
                }
                if mode == .full && shape.writers == 1 && shape.window == 1 {
                    // What every peer of this row pays per write at the least (DiskFloor).
                    peers.append(.init(peer: "the disk alone: one 4 KB `pwrite` and `fdatasync` per write, no database", measurement: Measurement.catching("disk floor") {
                        .rate("writes/s", operations: shape.count, durations: try Repetitions.measure(size: shape.count, runs: runs, DiskFloor.syncedWritesOnce(count:)))
                    }))
                }
                if mode == .full {
                    // Redis has no analogue of `normal`: `everysec` can lose acknowledged writes.
                    let clients = shape.writers == 1 ? "1 client" : "\(shape.writers) clients"
                    let pipeline = shape.window == 1 ? "" : ", pipeline of \(shape.window)"
                    peers.append(.init(peer: "Redis `SET`, `appendfsync always`, \(clients)\(pipeline)", measurement: redisAlways {
                        $0.setThroughput(clients: shape.writers, pipeline: shape.window, requests: shape.count, runs: runs)
                    }))
                }
                table.add(group: "durable", workload: "`\(mode)`: \(shape.name)", ember: figure, peers: peers)
            }
        }
    }

    /// Issue 18's bulk writes on a database directory: a large import, and a long offline
    /// queue of mixed writes, queued and replayed after a restart (Ember alone).
    private func bulk() {
        let children = quick ? 20_000 : 200_000
        let bulk = BulkWriteBenchmarks(ember: setup.ember)
        let imports = Repetitions.measure(size: children, runs: runs) { bulk.importOnce(children: $0) }
        let imported: Measurement =
            if setup.ember == nil {
                .notMeasured("no ember given (--ember)")
            } else if imports.contains(where: { $0 == nil }) {
                .notMeasured("`ember -c 'import …'` failed")
            } else {
                .measured(.latency(durations: imports.compactMap { $0 }))
            }
        table.add(
            group: "bulk",
            workload: "`ember --db DIR -c 'import /data FILE'`: \(Figure.grouped(Double(children))) children of about 50 bytes (one write), spawn to exit",
            ember: imported, peers: [])
        let writes = quick ? 10_000 : 100_000
        let queued = Repetitions.measure(size: writes, runs: runs) { BulkWriteBenchmarks.queueAndReplayOnce(count: $0) }
        table.add(
            group: "bulk",
            workload: "queue \(Figure.grouped(Double(writes))) writes offline (a third each: sets of distinct children, two-path updates, increments of one counter), committed",
            ember: .measured(.latency(durations: queued.map(\.queue))), peers: [])
        table.add(
            group: "bulk",
            workload: "restart with those \(Figure.grouped(Double(writes))) writes queued, go online, until the server has acknowledged every one",
            ember: .measured(.latency(durations: queued.map(\.replay))), peers: [])
    }

    /// One write seen by 100 listening clients.
    private func fanOut() {
        let messages = quick ? 200 : 2_000
        let clients = 100
        let throughput = ThroughputBenchmarks(report: BenchReport())
        let durations = Repetitions.measure(size: messages, runs: runs) { throughput.fanOutOnce(clients: clients, count: $0) }
        table.add(
            group: "fan-out", workload: "one writer sets `room/message` (each acknowledged), 100 clients listening: events delivered",
            ember: .measured(.rate("events/s", operations: messages * clients, durations: durations)),
            peers: [
                .init(peer: "Redis `PUBLISH`, 100 subscribed connections", measurement: redis { $0.publishFanOut(subscribers: clients, messages: messages, runs: runs) }),
            ])
    }

    /// Issue 22: `ember serve` over loopback TCP, as Firebase's clients use it, beside Redis.
    private func network() {
        guard let emberPath = setup.ember else {
            table.add(group: "network", workload: "ember serve", ember: .notMeasured("no ember executable (--ember PATH)"), peers: [])
            return
        }
        let bench = NetworkBenchmarks(served: .ember(path: emberPath))
        // The same workloads against a server on the same network stack that keeps no database
        // (``FloorServer``): what the stack alone allows on this machine.
        let floor = NetworkBenchmarks(served: .floor)
        let floorPeer = "the network stack alone: SwiftNIO WebSocket server, no database (`ember-bench network-floor`), same client"
        /// A write rate from `clients` connections at once, beside Redis `SET` from as many (and
        /// the floor server, given `floorOnce`).
        func writes(
            _ workload: String, clients: Int, count: Int, _ once: @escaping (Int) throws -> Duration,
            floorOnce: ((Int) throws -> Duration)? = nil
        ) {
            let plural = clients == 1 ? "" : "s"
            func rate(_ name: String, _ once: @escaping (Int) throws -> Duration) -> Measurement {
                Measurement.catching(name) {
                    .rate("writes/s", operations: count, durations: try Repetitions.measure(size: count, runs: runs, minimum: clients, once))
                }
            }
            let ember = rate("ember serve", once)
            var peers: [ComparisonTable.PeerResult] = [
                .init(peer: "Redis `SET`, \(clients) client\(plural) (redis-benchmark, loopback TCP, no listener)", measurement: redis {
                    $0.setThroughput(clients: clients, pipeline: 1, requests: count, runs: runs)
                }),
            ]
            if let floorOnce { peers.append(.init(peer: floorPeer, measurement: rate("floor server", floorOnce))) }
            table.add(group: "network", workload: "\(workload), \(clients) client\(plural)", ember: ember, peers: peers)
        }
        let sets = quick ? 2_000 : 20_000
        for clients in [1, 10] {
            writes(
                "WebSocket (realtime protocol v5): leaf sets, each acknowledged before the client's next, a listener receiving every one",
                clients: clients, count: sets, { try bench.writesOnce(writers: clients, count: $0) },
                floorOnce: { try floor.writesOnce(writers: clients, count: $0) })
        }
        let connections = quick ? 200 : 1_000
        let messages = quick ? 50 : 500
        var peak: NetworkBenchmarks.FanOut?
        var redisLatencies: Result<[[Double]], any Error> = .failure(PeerFailure("no redis-server on loopback"))
        // The paced runs, each with its own percentiles (one run's p99 is a few slow messages on
        // this noisy VM: the median of three says more).
        let pacedRuns = quick ? 1 : 3
        let deliveries = Measurement.catching("ember serve") {
            let runs = try Repetitions.measure(size: messages, runs: runs) { try bench.fanOutOnce(connections: connections, messages: $0) }
            peak = runs.sorted { $0.duration < $1.duration }[runs.count / 2]
            return .rate("events/s", operations: messages * connections, durations: runs.map(\.duration))
        }
        table.add(
            group: "network",
            workload: "fan-out: one WebSocket writer sets `room/message` (each acknowledged), \(Figure.grouped(Double(connections))) WebSockets listening: deliveries",
            ember: deliveries,
            peers: [
                .init(peer: "Redis `PUBLISH`, \(Figure.grouped(Double(connections))) subscribed connections", measurement: redis {
                    $0.publishFanOut(subscribers: connections, messages: messages, runs: runs, latencyRuns: pacedRuns) { redisLatencies = $0 }
                }),
                .init(peer: floorPeer, measurement: Measurement.catching("floor server") {
                    let runs = try Repetitions.measure(size: messages, runs: runs) { try floor.fanOutOnce(connections: connections, messages: $0) }
                    return .rate("events/s", operations: messages * connections, durations: runs.map(\.duration))
                }),
            ])
        if let peak {
            // Runs paced at half the peak message rate: the latency a listener sees in steady use.
            let interval = peak.duration * 2 / messages
            let rate = Figure.grouped(Double(messages) / (interval * messages).seconds)
            let paced = Result {
                try (0..<pacedRuns).map { _ in try bench.fanOutOnce(connections: connections, messages: messages, interval: interval) }
            }
            for (name, fraction) in [("p50", 0.5), ("p99", 0.99)] {
                let latency = Measurement.catching("ember serve") {
                    Figure(runs: try paced.get().map { $0.percentile(fraction) }, unit: .seconds)
                }
                // Redis paced the same way, at half its own peak.
                let redisLatency = redis { _ in
                    Measurement.catching("PUBLISH fan-out") {
                        Figure(runs: try redisLatencies.get().map { $0.percentile(fraction) }, unit: .seconds)
                    }
                }
                table.add(
                    group: "network", workload: "fan-out write-to-delivery latency, \(name), at half the peak (\(rate) writes/s to \(connections) listeners; median of \(pacedRuns) paced run\(pacedRuns == 1 ? "" : "s"); target p99 under 10 ms)",
                    ember: latency,
                    peers: [.init(peer: "Redis `PUBLISH` to as many, at half its own peak", measurement: redisLatency)])
            }
        }
        let puts = quick ? 1_000 : 10_000
        for clients in [1, 10] {
            writes("REST `PUT` of a leaf, keep-alive", clients: clients, count: puts) { try bench.restWritesOnce(clients: clients, count: $0) }
        }
        let idle = quick ? 200 : 1_000
        let memory = Measurement.catching("ember serve") {
            Figure(runs: try (0..<(quick ? 1 : 3)).map { _ in try bench.bytesPerIdleConnection(connections: idle) }, unit: .bytes("B/connection"))
        }
        table.add(
            group: "network", workload: "server memory per idle WebSocket (resident growth over \(Figure.grouped(Double(idle))) connections; target ≤ 64 KB)",
            ember: memory, peers: [])
    }

    /// `orderByChild('score').limitToLast(10)` over a large list, once and live.
    private func query() {
        let children = quick ? 100_000 : 1_000_000
        let queries = quick ? 100 : 1_000
        let changes = quick ? 1_000 : 10_000
        let size = Figure.grouped(Double(children))
        let indexed = QueryBenchmarks(children: children).run(indexed: true, queries: queries, changes: changes, runs: runs)
        let sortedSet = setup.peers ? setup.redis?.sortedSet(members: children, queries: queries, changes: changes, runs: runs) : nil
        let tree = setup.peers ? setup.tarantool?.query(tuples: children, queries: queries, changes: changes, runs: runs) : nil
        let json = setup.peers ? SQLitePeer().query(rows: children, indexed: true, queries: queries, changes: changes, runs: runs) : nil
        table.add(
            group: "query", workload: "top ten by `score` of \(size) children with `.indexOn` (`get`, answered by the server)",
            ember: indexed.topTen,
            peers: [
                .init(peer: "SQLite json1, expression index on `json_extract(value, '$.score')`", measurement: sqlite { _ in json!.topTen }),
                .init(peer: "Redis sorted set, `ZREVRANGE 0 9`", measurement: redis { _ in sortedSet!.topTen }),
                .init(peer: "Tarantool TREE index on score, `select` LE limit 10", measurement: tarantool { _ in tree!.topTen }),
            ])
        table.add(
            group: "query", workload: "the same query live while scores change (each write acknowledged, the listener has the change)",
            ember: indexed.live,
            peers: [
                .init(peer: "SQLite: `UPDATE` then the query again", measurement: sqlite { _ in json!.live }),
                .init(peer: "Redis: `ZADD` then `ZREVRANGE` again", measurement: redis { _ in sortedSet!.live }),
                .init(peer: "Tarantool: `update` then the select again", measurement: tarantool { _ in tree!.live }),
            ])
        let slowQueries = quick ? 3 : 5
        let slowChanges = quick ? 3 : 5
        let unindexed = QueryBenchmarks(children: children).run(indexed: false, queries: slowQueries, changes: slowChanges, runs: quick ? 1 : 3)
        let scan = setup.peers ? SQLitePeer().query(rows: children, indexed: false, queries: slowQueries, changes: slowChanges, runs: quick ? 1 : 3) : nil
        table.add(
            group: "query", workload: "top ten by `score` of \(size) children, no index",
            ember: unindexed.topTen,
            peers: [.init(peer: "SQLite json1, no index (a full scan)", measurement: sqlite { _ in scan!.topTen })])
        table.add(
            group: "query", workload: "the same query live, no index",
            ember: unindexed.live,
            peers: [.init(peer: "SQLite: `UPDATE` then the query again, no index", measurement: sqlite { _ in scan!.live })])
    }

    /// Clients incrementing one counter with transactions.
    private func transactions() {
        let contention = TransactionBenchmarks()
        let runs = quick ? 1 : 3
        for clients in [1, 8, 32] {
            // Fewer increments as contention grows: a Redis client under 32-way contention
            // commits about a thousand a second here.
            let increments = (clients == 1 ? 20_000 : clients == 8 ? 10_000 : 5_000) / (quick ? 10 : 1)
            table.add(
                group: "transactions", workload: "\(clients) client\(clients == 1 ? "" : "s") incrementing one counter with transactions",
                ember: contention.contention(clients: clients, increments: increments, runs: runs),
                peers: [
                    .init(peer: "Redis `WATCH`/`MULTI`/`EXEC` retry loop, \(clients) connection\(clients == 1 ? "" : "s")", measurement: redis {
                        $0.watchMultiIncrements(clients: clients, increments: increments, runs: runs)
                    }),
                    .init(peer: "Redis `INCR` (the ceiling: no read-modify-write), \(clients) client\(clients == 1 ? "" : "s")", measurement: redis {
                        $0.incrThroughput(clients: clients, requests: clients == 1 ? 50_000 / (quick ? 10 : 1) : 100_000 / (quick ? 10 : 1), runs: runs)
                    }),
                ])
        }
        let inFlight = quick ? 1_000 : 10_000
        table.add(
            group: "transactions", workload: "\(Figure.grouped(Double(inFlight))) transactions in flight on distinct locations, started then flushed (1 client)",
            ember: contention.inFlight(count: inFlight, runs: runs),
            peers: [
                .init(peer: "Redis `INCR` on as many distinct keys, pipelined in one connection (no read-modify-write)", measurement: redis {
                    $0.pipelinedIncrements(keys: inFlight, runs: runs)
                }),
            ])
    }

    /// Opening a server store of a million leaves and answering a first read.
    private func reopen() {
        let leaves = quick ? 100_000 : 1_000_000
        let runs = quick ? 1 : 3
        let directory = TemporaryDirectory.make("compare-reopen")
        defer { TemporaryDirectory.remove(directory) }
        DurabilityBenchmarks.buildReopenStore(file: directory + "/server.sqlite", leaves: leaves)
        let settings = try! PersistenceSettings(durability: .normal, clientCacheSize: 10_000_000)
        func open() -> Duration {
            Stopwatch.measure {
                let ember = try! Ember(persistence: .directory(directory, settings), clock: SystemClock(), random: SeededRandom(seed: 1))
                let perObject = leaves / 1_000
                let middle = Path(unchecked: "items/o500/k\(perObject / 2)")
                precondition(ember.server.value(at: middle) == Node(.int(Int64(500 * perObject + perObject / 2))), "the leaf reads back")
                try! ember.close()
            }
        }
        _ = open()
        let durations = (0..<runs).map { _ in open() }
        table.add(
            group: "reopen", workload: "open a server store of \(Figure.grouped(Double(leaves))) leaves and read one leaf (in process)",
            ember: .measured(.latency(durations: durations)),
            peers: [
                .init(peer: "SQLite: open the file and the first query (reads only the pages it needs)", measurement: sqlite { $0.reopen(leaves: leaves, runs: runs) }),
                .init(peer: "SQLite: open and read every row (what loading it all costs)", measurement: sqlite { _ in
                    .measured(.latency(durations: (0..<runs).map { _ in
                        Stopwatch.measure {
                            let database = RawSQLite(path: directory + "/server.sqlite", durability: .normal)
                            precondition(database.readLeaves() == leaves)
                            database.close()
                        }
                    }))
                }),
                .init(peer: "Tarantool: recovery of the same leaves from its snapshot, then one `get`", measurement: tarantool { $0.recovery(tuples: leaves, runs: runs) }),
            ])
    }

    /// From exec to exit of a shell that answers one read.
    private func startup() {
        guard let emberPath = setup.ember else {
            table.add(group: "start-up", workload: "`ember --memory -c 'get /'`", ember: .notMeasured("no release ember given (--ember)"), peers: [])
            return
        }
        var subjects: [StartupBenchmarks.Subject] = [
            .init(name: "ember", arguments: [emberPath, "--memory", "-q", "-c", "get /"]),
        ]
        if setup.peers {
            subjects.append(.init(name: "sqlite3", arguments: ["sqlite3", ":memory:", "select 1"]))
            subjects.append(.init(name: "lua5.4", arguments: ["lua5.4", "-e", ""]))
            if let redis = setup.redis {
                subjects.append(.init(name: "redis-cli", arguments: ["redis-cli", "-h", redis.host, "-p", String(redis.port), "GET", "bench:x"]))
            }
        }
        let samples = StartupBenchmarks.samples(subjects: subjects, runs: quick ? 20 : 200)
        func figure(_ name: String, missing: String) -> Measurement {
            guard setup.peers || name == "ember" else { return .notMeasured("peers off (--no-peers)") }
            guard let index = subjects.firstIndex(where: { $0.name == name }) else { return .notMeasured(missing) }
            guard let durations = samples[index] else { return .notMeasured("\(name) failed or is not installed") }
            return .measured(.latency(durations: durations))
        }
        table.add(
            group: "start-up", workload: "`ember --memory -c 'get /'`: start, connect a client, read, exit",
            ember: figure("ember", missing: ""),
            peers: [
                .init(peer: "`sqlite3 :memory: 'select 1'`", measurement: figure("sqlite3", missing: "")),
                .init(peer: "`redis-cli GET bench:x` (to the running server)", measurement: figure("redis-cli", missing: "no redis-server on loopback")),
                .init(peer: "`lua5.4 -e ''`", measurement: figure("lua5.4", missing: "")),
            ])
    }

    /// Resident memory per small leaf.
    private func memory() {
        let leaves = quick ? 100_000 : 1_000_000
        let ember: Measurement
        // A process of its own: memory freed by earlier workloads would hide the growth.
        let child = try? PeerProcess.run([setup.bench, "memory-per-leaf", String(leaves)])
        if let child, child.status == 0, let bytes = Double(child.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) {
            ember = .measured(Figure(runs: [bytes], unit: .bytes("B/leaf")))
        } else {
            ember = .notMeasured("`ember-bench memory-per-leaf` failed: \(child.map { $0.errorTail() } ?? "it could not start")")
        }
        table.add(
            group: "memory", workload: "\(Figure.grouped(Double(leaves))) leaves `k<i>` = i under one node (the server's tree, resident memory)",
            ember: ember,
            peers: [
                .init(peer: "Redis hash, one field per leaf (`used_memory`)", measurement: redis { $0.hashBytesPerField(fields: leaves) }),
                .init(peer: "SQLite file, one row per leaf in Ember's store layout (bytes on disk)", measurement: sqlite { $0.bytesPerRow(rows: leaves) }),
            ])
    }

    /// Loops of writes inside one Lua script.
    private func lua() {
        guard let emberPath = setup.ember else {
            table.add(group: "lua", workload: "Lua loops", ember: .notMeasured("no release ember given (--ember)"), peers: [])
            return
        }
        let benchmarks = LuaBenchmarks(ember: emberPath, redisSocket: setup.peers ? setup.redisSocket : nil, runs: quick ? 1 : 5)
        for workload in LuaBenchmarks.workloads(quick: quick) {
            let figures = benchmarks.figures(workload)
            table.add(
                group: "lua", workload: "\(Figure.grouped(Double(workload.count))) × \(workload.name)",
                ember: figures.ember,
                peers: [.init(peer: "Redis: the same loop of `redis.call('SET', …)` in one `EVAL`", measurement: setup.peers ? figures.redis : .notMeasured("peers off (--no-peers)"))])
        }
    }
}
