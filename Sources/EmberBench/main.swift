import EmberCore
import EmberRules
import EmberStorage
import EmberSync
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// ember-bench: the workloads of BENCHMARKS.md. Run through `scripts/bench` (release build).
// `ember-bench core` runs EmberCore's workloads; `--quick` uses smaller sizes for a smoke run.
// `ember-bench durability` runs issue 5's (on database directories under /tmp, removed after).

let arguments = CommandLine.arguments.dropFirst()

if arguments.first == "peers-smoke" {
    // `ember-bench peers-smoke [--redis PORT] [--redis-aof PORT] [--full] [--runs N]`: every
    // peer workload (Redis, Tarantool, SQLite) at small sizes, or the full ones, in one run.
    do {
        try PeerSmoke(arguments: Array(arguments.dropFirst())).run()
    } catch {
        print(error)
        exit(2)
    }
    exit(0)
}

if arguments.first == "replay" {
    // `ember-bench replay [N] [RUNS]`: issue 18's queue-and-replay alone (default 100,000 writes,
    // 3 runs), each run's queue and replay times on a line: for profiling the replay.
    let rest = Array(arguments.dropFirst())
    let count = rest.first.flatMap { Int($0) } ?? 100_000
    let runs = rest.dropFirst().first.flatMap { Int($0) } ?? 3
    for _ in 0..<runs {
        let run = BulkWriteBenchmarks.queueAndReplayOnce(count: count)
        let phases = run.phases.map { String(format: "%.3f", $0.seconds) }.joined(separator: " / ")
        print(
            "queue \(count): \(String(format: "%.3f", run.queue.seconds)) s, replay: \(String(format: "%.3f", run.replay.seconds)) s "
                + "(restore / online / flush / close: \(phases)), CPU \(String(format: "%.3f", run.replayCPU)) s")
    }
    exit(0)
}

if arguments.first == "transactions" {
    // `ember-bench transactions [N] [RUNS]`: issue 37's transactions in flight alone (default
    // 10,000, 5 runs), each run's time on a line: for profiling.
    let rest = Array(arguments.dropFirst())
    let count = rest.first.flatMap { Int($0) } ?? 10_000
    let runs = rest.dropFirst().first.flatMap { Int($0) } ?? 5
    for _ in 0..<runs {
        print("\(count) in flight: \(String(format: "%.3f", TransactionBenchmarks().inFlightOnce(count: count).seconds)) s")
    }
    exit(0)
}

if arguments.first == "durable-writes" {
    // `ember-bench durable-writes MODE WRITERS WINDOW COUNT [RUNS]`: one shape of the durable
    // rows alone (MODE: off, normal, full or memory), each run's rate on a line: for profiling.
    let rest = Array(arguments.dropFirst())
    guard rest.count >= 4, let writers = Int(rest[1]), let window = Int(rest[2]), let count = Int(rest[3]) else {
        print("usage: ember-bench durable-writes MODE WRITERS WINDOW COUNT [RUNS]")
        exit(2)
    }
    let durability = Durability(rawValue: rest[0])
    let runs = rest.dropFirst(4).first.flatMap { Int($0) } ?? 3
    let benchmarks = DurabilityBenchmarks(report: BenchReport(), quick: false)
    for _ in 0..<runs {
        let time = benchmarks.emberWritesOnce(durability: durability, writers: writers, window: window, count: count)
        print("\(rest[0]), \(writers) writer(s), window \(window): \(Int(Double(count) / time.seconds)) writes/s")
    }
    exit(0)
}

if arguments.first == "disk-floor" {
    // `ember-bench disk-floor [COUNT] [RUNS]`: the disk alone (DiskFloor: one 4 KB `pwrite` and
    // `fdatasync` per write), each run's rate on a line, beside `durable-writes full 1 1 COUNT`.
    let rest = Array(arguments.dropFirst())
    let count = rest.first.flatMap { Int($0) } ?? 5_000
    let runs = rest.dropFirst().first.flatMap { Int($0) } ?? 3
    for _ in 0..<runs {
        do {
            print("disk floor: \(Int(Double(count) / (try DiskFloor.syncedWritesOnce(count: count)).seconds)) writes/s")
        } catch {
            print(error)
            exit(2)
        }
    }
    exit(0)
}

if arguments.first == "top-ten" {
    // `ember-bench top-ten [CHILDREN] [QUERIES] [RUNS]`: issue 8's indexed top ten alone
    // (default 1,000,000 children, 100,000 queries, 3 runs): for profiling.
    let rest = Array(arguments.dropFirst())
    let children = rest.first.flatMap { Int($0) } ?? 1_000_000
    let queries = rest.dropFirst().first.flatMap { Int($0) } ?? 100_000
    let runs = rest.dropFirst(2).first.flatMap { Int($0) } ?? 3
    let figures = QueryBenchmarks(children: children).run(indexed: true, queries: queries, changes: 100, runs: runs)
    print("indexed top ten of \(children): \(figures.topTen.formatted) per query")
    exit(0)
}

if arguments.first == "counter" {
    // `ember-bench counter [CLIENTS] [N]`: issue 8's counter alone, one run: for profiling.
    let rest = Array(arguments.dropFirst())
    let clients = rest.first.flatMap { Int($0) } ?? 1
    let count = rest.dropFirst().first.flatMap { Int($0) } ?? 20_000
    print("\(clients) clients, \(count) increments: \(TransactionBenchmarks().once(clients: clients, increments: count))")
    exit(0)
}

let quick = arguments.contains("--quick")
let n = quick ? 100_000 : 1_000_000
let report = BenchReport()
let core = CoreBenchmarks(report: report)
let sync = SyncBenchmarks(report: report)
let throughput = ThroughputBenchmarks(report: report)

/// The realtime pair's workloads; `ember-bench throughput writes` (or `pipelined`, `rules`
/// or `fanout`) runs only one, for profiling.
@MainActor func runThroughput(only: String?) {
    report.header("Realtime pair (in-process): acknowledged writes with a listener, and fan-out")
    let writes = quick ? 50_000 : 200_000
    if only == nil || only == "writes" { throughput.acknowledgedWrites(count: writes, window: 1, repetitions: quick ? 1 : 5) }
    if only == nil || only == "rules" {
        throughput.acknowledgedWrites(count: writes, window: 1, repetitions: quick ? 1 : 5, rules: try! Ruleset(text: ThroughputBenchmarks.tenRules))
    }
    if only == nil || only == "pipelined" { throughput.acknowledgedWrites(count: writes, window: 1_000, repetitions: quick ? 1 : 5) }
    if only == nil || only == "fanout" { throughput.fanOut(clients: 100, count: quick ? 500 : 2_000) }
}

if arguments.first == "compare" {
    // Issue 8's instrument (`scripts/bench` starts the peers and passes where they are):
    // `ember-bench compare [--quick] [--only GROUP,…] [--no-peers] [--redis HOST:PORT]
    // [--redis-always HOST:PORT] [--redis-socket PATH] [--tarantool PATH] [--ember PATH]`.
    var setup = ComparisonRun.Setup(bench: CommandLine.arguments[0])
    var rest = Array(arguments.dropFirst())
    func value(_ flag: String) -> String {
        guard !rest.isEmpty else {
            print("ember-bench compare: \(flag) needs a value")
            exit(2)
        }
        return rest.removeFirst()
    }
    func redis(_ flag: String) -> RedisPeer {
        let text = value(flag)
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else {
            print("ember-bench compare: \(flag) takes HOST:PORT, not '\(text)'")
            exit(2)
        }
        return RedisPeer(host: String(text[..<colon]), port: port)
    }
    while !rest.isEmpty {
        let flag = rest.removeFirst()
        switch flag {
        case "--quick": setup.quick = true
        case "--no-peers": setup.peers = false
        case "--only":
            let groups = value(flag).split(separator: ",").map(String.init)
            if let unknown = groups.first(where: { !ComparisonRun.groups.contains($0) }) {
                print("ember-bench compare: unknown group '\(unknown)' (\(ComparisonRun.groups.joined(separator: ", ")))")
                exit(2)
            }
            setup.only = Set(groups)
        case "--redis": setup.redis = redis(flag)
        case "--redis-always": setup.redisAlwaysFsync = redis(flag)
        case "--redis-socket": setup.redisSocket = value(flag)
        case "--tarantool": setup.tarantool = TarantoolPeer(executable: value(flag))
        case "--ember": setup.ember = value(flag)
        default:
            print("ember-bench compare: unknown argument '\(flag)'")
            exit(2)
        }
    }
    ComparisonRun(setup: setup).run()
    exit(0)
}

if arguments.first == "scale-listen" {
    // The scale workload's child process: `scale-listen DIR` opens the database directory,
    // listens to `/` with a client until the whole tree has arrived, and prints the process's
    // resident memory in bytes.
    guard let directory = arguments.dropFirst().first else {
        print("usage: ember-bench scale-listen DIR")
        exit(2)
    }
    print(ScaleBenchmarks.residentWithTheWholeTree(directory: directory))
    exit(0)
}

if arguments.first == "memory-per-leaf" {
    // The memory workload's child process: `memory-per-leaf N` prints the growth of resident
    // memory per leaf while one node gets N children `k<i>` = i.
    guard let count = arguments.dropFirst().first.flatMap({ Int($0) }), count > 0 else {
        print("usage: ember-bench memory-per-leaf N")
        exit(2)
    }
    let before = ResidentMemory.bytes()
    var node = Node.empty
    for index in 0..<count { node.setChild(ChildKey(unchecked: BenchData.key(index)), Node(.int(Int64(index)))) }
    let after = ResidentMemory.bytes()
    precondition(node.childCount == count)
    print((after - before) / count)
    withExtendedLifetime(node) {}
    exit(0)
}

if arguments.first == "sync" {
    // Only the sync engine's workload (`scripts/bench --only sync`).
    print("# ember-bench: sync\n")
    report.header("One leaf changes under n children, watched by value and limitToLast(10)")
    for size in quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000] { sync.run(n: size) }
    exit(0)
}

if arguments.first == "throughput" {
    print("# ember-bench: throughput\n")
    runThroughput(only: arguments.dropFirst().first(where: { !$0.hasPrefix("--") }))
    exit(0)
}

if arguments.first == "hotpath" {
    // `ember-bench hotpath [COUNT]`: the engine's share of a write with a listener, in-process.
    let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 200_000
    for _ in 0..<3 {
        print(HotPathBenchmark.run(count: count).map { "\($0.0) \(Int($0.1)) ns" }.joined(separator: ", ")
            + ", fan-out \(Int(HotPathBenchmark.fanOut(listeners: 1_000, writes: 500))) ns a delivery")
    }
    exit(0)
}

/// The value after `--NAME` in `rest`, if given.
func option(_ name: String, in rest: [String]) -> String? {
    rest.firstIndex(of: "--" + name).flatMap { rest.indices.contains($0 + 1) ? rest[$0 + 1] : nil }
}

if arguments.first == "network-floor" {
    // The floor server that `ember-bench network WORKLOAD --floor` measures.
    let rest = Array(arguments.dropFirst())
    let loops = option("loops", in: rest).flatMap { Int($0) }
        ?? ProcessInfo.processInfo.environment["NIO_SINGLETON_GROUP_LOOP_COUNT"].flatMap { Int($0) }
        ?? ProcessInfo.processInfo.activeProcessorCount
    do {
        try FloorServer(port: option("port", in: rest).flatMap { Int($0) } ?? 0, loops: loops).run()
    } catch {
        print("ember-bench network-floor: \(error)")
        exit(1)
    }
}

if arguments.first == "network" {
    // One of issue 22's network workloads, once, against `--ember PATH` (for profiling the
    // server): `ember-bench network writes1|writes10|rest1|rest10|fanout [--ember PATH]`, or `publish
    // [--redis PORT]` (Redis's fan-out, for pairs).
    let rest = Array(arguments.dropFirst())
    let workload = rest.first(where: { !$0.hasPrefix("--") }) ?? "fanout"
    let ember = option("ember", in: rest) ?? ".build/release/ember"
    // `--floor`: against ``FloorServer`` instead, the network stack without a database.
    let bench = NetworkBenchmarks(served: rest.contains("--floor") ? .floor : .ember(path: ember))
    do {
        switch workload {
        case "writes1", "writes10":
            let writers = workload == "writes1" ? 1 : 10
            let count = option("count", in: rest).flatMap { Int($0) }
                ?? (quick ? 2_000 : 50_000)
            let run = try bench.writesMeasured(writers: writers, count: count)
            let perWrite = Int(run.serverSeconds / Double(count) * 1e6)
            print("\(writers) writer(s): \(Int(Double(count) / run.duration.seconds)) writes/s, server CPU \(perWrite) µs a write")
        case "rest1", "rest10":
            let clients = workload == "rest1" ? 1 : 10
            let count = quick ? 2_000 : 20_000
            let time = try bench.restWritesOnce(clients: clients, count: count)
            print("REST PUT, \(clients) client(s): \(Int(Double(count) / time.seconds)) writes/s")
        case "fanout":
            let connections = quick ? 200 : 1_000
            let messages = quick ? 50 : 500
            let run = try bench.fanOutOnce(connections: connections, messages: messages)
            let perDelivery = run.serverSeconds / Double(messages * connections) * 1e6
            print("fan-out to \(connections): \(Int(Double(messages * connections) / run.duration.seconds)) deliveries/s, server CPU \((perDelivery * 100).rounded() / 100) µs a delivery")
            // `--rate N`: paced at N writes a second instead of half this run's peak (to compare
            // two builds' latency at the same load).
            let rate = option("rate", in: rest).flatMap { Double($0) }
            let interval = rate.map { Duration.seconds(1 / $0) } ?? run.duration * 2 / messages
            let paced = try bench.fanOutOnce(connections: connections, messages: messages, interval: interval)
            print("at half the peak (ms): \(paced.latencies.percentileLine)")
        case "publish":
            // The peer of `fanout`: Redis `PUBLISH` to as many subscribers, against a running
            // Redis (`--redis PORT` on 127.0.0.1).
            let port = option("redis", in: rest).flatMap { Int($0) } ?? 6379
            let subscribers = quick ? 200 : 1_000
            var latencies: Result<[Double], any Error> = .failure(PeerFailure("not measured"))
            let rate = RedisPeer(host: "127.0.0.1", port: port).publishFanOut(subscribers: subscribers, messages: quick ? 50 : 500, runs: 1) {
                latencies = $0.map { $0[0] }
            }
            print("PUBLISH to \(subscribers): \(rate.formatted)")
            do {
                print("at half the peak (ms): \(try latencies.get().percentileLine)")
            } catch {
                print("at half the peak: \(error)")
            }
        default:
            print("ember-bench network: unknown workload '\(workload)' (writes1, writes10, rest1, rest10, fanout or publish)")
            exit(2)
        }
    } catch {
        print("ember-bench network: \(error)")
        exit(1)
    }
    exit(0)
}

/// Issue 5's durability workloads; `ember-bench durability writes` (or `reopen`, or `restart`)
/// runs only one; `group-commit` (one writer, 100 unacknowledged, `normal`) and `waiting` (each
/// write waits for its ack, `normal`) run one row of `writes`, for profiling.
@MainActor func runDurability(only: String?) {
    let durability = DurabilityBenchmarks(report: report, quick: quick)
    if only == nil || only == "writes" { durability.writes() }
    if only == "group-commit" || only == "waiting" {
        report.header("Acknowledged durable writes")
        let window = only == "waiting" ? 1 : 100
        durability.emberWrites(durability: .normal, writers: 1, window: window, count: quick ? 10_000 : 100_000)
    }
    if only == nil || only == "reopen" { durability.reopen(leaves: quick ? 100_000 : 1_000_000) }
    if only == nil || only == "restart" { durability.restart(writes: quick ? 10_000 : 100_000) }
}

if arguments.first == "durability" {
    let only = arguments.dropFirst().first(where: { !$0.hasPrefix("--") })
    if let only, !["writes", "group-commit", "waiting", "reopen", "restart"].contains(only) {
        print("ember-bench durability: unknown workload '\(only)' (writes, group-commit, waiting, reopen or restart)")
        exit(2)
    }
    print("# ember-bench: durability\n")
    runDurability(only: only)
    exit(0)
}

if arguments.first == "durability-replay" {
    // The child process of the restart workload: `durability-replay DIRECTORY WRITES`.
    let rest = Array(arguments.dropFirst())
    guard rest.count == 2, let writes = Int(rest[1]) else {
        print("usage: ember-bench durability-replay DIRECTORY WRITES")
        exit(2)
    }
    DurabilityBenchmarks.replay(directory: rest[0], writes: writes)
    exit(0)
}

if arguments.first == "startup" {
    // `ember-bench startup EMBER`: the release `ember` beside sqlite3 and lua5.4.
    guard let ember = arguments.dropFirst().first(where: { !$0.hasPrefix("--") }) else {
        print("usage: ember-bench startup PATH-TO-EMBER [--quick]")
        exit(2)
    }
    print("# ember-bench: startup")
    StartupBenchmarks.run(
        subjects: [
            .init(name: "ember --memory -c 'get /'", arguments: [ember, "--memory", "-q", "-c", "get /"]),
            .init(name: "sqlite3 :memory: 'select 1'", arguments: ["sqlite3", ":memory:", "select 1"]),
            .init(name: "lua5.4 -e ''", arguments: ["lua5.4", "-e", ""]),
        ],
        runs: quick ? 20 : 200)
    exit(0)
}

if arguments.first == "lua" {
    // `ember-bench lua EMBER [REDIS-SOCKET]`: loops of writes in one Lua script, the release
    // `ember` beside Redis's EVAL on a server at REDIS-SOCKET (left out: Redis not measured).
    let paths = arguments.dropFirst().filter { !$0.hasPrefix("--") }
    guard let ember = paths.first, paths.count <= 2 else {
        print("usage: ember-bench lua PATH-TO-EMBER [REDIS-SOCKET] [--quick]")
        exit(2)
    }
    print("# ember-bench: lua")
    LuaBenchmarks(ember: ember, redisSocket: paths.dropFirst().first, runs: 5)
        .run(workloads: LuaBenchmarks.workloads(quick: quick))
    exit(0)
}

if arguments.first == "memory" {
    // One measurement per process: freed memory from an earlier workload would hide growth.
    let kind: CoreBenchmarks.KeyKind = arguments.dropFirst().first == "integer" ? .integer : .pushID
    core.memory(n: n, kind: kind)
    exit(0)
}

print("# ember-bench\n")
print("n = \(n)\(quick ? " (quick)" : "")")

report.header("A million children under one node")
for kind in CoreBenchmarks.KeyKind.allCases { core.run(n: n, kind: kind) }

report.header("Cost per insert as n doubles (push IDs)")
if quick { core.run(n: n / 2, kind: .pushID) } else { core.scaling() }

report.header("Other insert patterns")
core.persistent(n: quick ? 50_000 : 200_000)
core.shuffled(n: n)

if arguments.first != "core" {
    report.header("Sync engine: one leaf changes under n children, watched by value and limitToLast(10)")
    for size in quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000] { sync.run(n: size) }
    runThroughput(only: nil)
    runDurability(only: nil)
}
