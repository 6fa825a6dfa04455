/// `ember-bench peers-smoke`: every peer workload once, at small sizes (or with `--full` at
/// the sizes of the comparison), each figure printed with the wall time its workload took, so
/// that the whole peer side can be checked in one run.
///
/// Usage: `ember-bench peers-smoke [--redis PORT] [--redis-aof PORT] [--full] [--runs N]`.
/// Redis workloads run only against the ports given (loopback); Tarantool and SQLite always.
struct PeerSmoke {
    /// Why the command line was not understood.
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static let usage = "usage: ember-bench peers-smoke [--redis PORT] [--redis-aof PORT] [--full] [--runs N]"

    var redisPort: Int?
    var aofPort: Int?
    var full = false
    var runs = 3

    /// Reads the options after `peers-smoke`.
    init(arguments: [String]) throws(UsageError) {
        var rest = arguments[...]
        while let option = rest.popFirst() {
            switch option {
            case "--full": full = true
            case "--redis", "--redis-aof", "--runs":
                guard let text = rest.popFirst(), let value = Int(text), value > 0 else {
                    throw UsageError(description: "\(option) needs a positive number\n\(Self.usage)")
                }
                if option == "--redis" { redisPort = value } else if option == "--redis-aof" { aofPort = value } else { runs = value }
            default:
                throw UsageError(description: "unknown option '\(option)'\n\(Self.usage)")
            }
        }
    }

    /// Runs every workload and prints `name: figure [wall time]` lines.
    func run() {
        print("# ember-bench: peers-smoke (\(full ? "full sizes" : "small sizes"), \(runs) runs after 1 warm-up)\n")
        let size = { (small: Int, large: Int) in full ? large : small }
        let runs = runs

        for (label, port) in [("Redis", redisPort), ("Redis AOF always", aofPort)] {
            guard let port else {
                print("\(label): skipped (no port given)")
                continue
            }
            let redis = RedisPeer(host: "127.0.0.1", port: port)
            if let reason = redis.unavailable() {
                print("\(label): not measured: \(reason)")
                continue
            }
            let requests = size(2_000, 200_000)
            for (clients, pipeline) in [(1, 1), (50, 1), (1, 1_000), (50, 1_000)] {
                // One client waiting for each fsync does a few thousand writes a second: 200,000
                // would take a minute a run.
                let requests = port == aofPort && clients == 1 && pipeline == 1 ? size(500, 20_000) : pipeline > 1 ? 5 * requests : requests
                report("\(label): SET, \(clients) clients, -P \(pipeline), \(requests) requests") {
                    redis.setThroughput(clients: clients, pipeline: pipeline, requests: requests, runs: runs)
                }
            }
            if port == aofPort { continue }
            for clients in [1, 50] {
                report("\(label): INCR, \(clients) clients, \(requests) requests") {
                    redis.incrThroughput(clients: clients, requests: requests, runs: runs)
                }
            }
            let increments = size(400, 20_000)
            for clients in [1, 8, 32] {
                report("\(label): WATCH/GET/MULTI/SET/EXEC, \(clients) clients, \(increments) increments") {
                    redis.watchMultiIncrements(clients: clients, increments: increments, runs: runs)
                }
            }
            let subscribers = size(10, 100)
            let messages = size(100, 2_000)
            report("\(label): PUBLISH to \(subscribers) subscribers, \(messages) messages") {
                redis.publishFanOut(subscribers: subscribers, messages: messages, runs: runs)
            }
            let members = size(10_000, 1_000_000)
            let queries = size(100, 1_000)
            let changes = size(100, 10_000)
            reportPair("\(label): sorted set of \(members), \(queries) top-ten queries / \(changes) changes") {
                redis.sortedSet(members: members, queries: queries, changes: changes, runs: runs)
            }
            let fields = size(10_000, 1_000_000)
            report("\(label): hash of \(fields) fields, used_memory per field") { redis.hashBytesPerField(fields: fields) }
        }

        let tarantool = TarantoolPeer()
        if let reason = tarantool.unavailable() {
            print("Tarantool: not measured: \(reason)")
        } else {
            for (mode, count) in [("write", size(1_000, 20_000)), ("fsync", size(200, 5_000))] {
                for fibers in [1, 8] {
                    report("Tarantool: replace, wal_mode \(mode), \(fibers) fibers, \(count) writes") {
                        tarantool.writes(walMode: mode, fibers: fibers, count: count, runs: runs)
                    }
                }
            }
            let tuples = size(10_000, 1_000_000)
            let queries = size(100, 1_000)
            let changes = size(100, 10_000)
            reportPair("Tarantool: \(tuples) tuples, \(queries) top-ten selects / \(changes) changes") {
                tarantool.query(tuples: tuples, queries: queries, changes: changes, runs: runs)
            }
            report("Tarantool: recovery of \(tuples) tuples from a snapshot + first get") {
                tarantool.recovery(tuples: tuples, runs: runs)
            }
        }

        let sqlite = SQLitePeer()
        let rows = size(10_000, 1_000_000)
        reportPair("SQLite: \(rows) rows, indexed, \(size(100, 1_000)) top-ten queries / \(size(100, 10_000)) changes") {
            sqlite.query(rows: rows, indexed: true, queries: size(100, 1_000), changes: size(100, 10_000), runs: runs)
        }
        reportPair("SQLite: \(rows) rows, not indexed, \(size(5, 3)) top-ten queries / \(size(20, 10)) changes") {
            sqlite.query(rows: rows, indexed: false, queries: size(5, 3), changes: size(20, 10), runs: runs)
        }
        report("SQLite: \(rows) rows in the leaves layout, bytes per row") { sqlite.bytesPerRow(rows: rows) }
        report("SQLite: reopen \(rows) leaves + first query") { sqlite.reopen(leaves: rows, runs: runs) }
    }

    private func report(_ name: String, _ body: () -> Measurement) {
        let start = ContinuousClock.now
        let measurement = body()
        print("\(name): \(measurement.formatted)  [\(Figure.duration((ContinuousClock.now - start).seconds)) wall]")
    }

    private func reportPair(_ name: String, _ body: () -> (topTen: Measurement, live: Measurement)) {
        let start = ContinuousClock.now
        let (topTen, live) = body()
        let wall = Figure.duration((ContinuousClock.now - start).seconds)
        print("\(name): top ten \(topTen.formatted); live \(live.formatted)  [\(wall) wall, load included]")
    }
}
