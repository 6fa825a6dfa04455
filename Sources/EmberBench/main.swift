import EmberCore
import EmberSync
#if canImport(Glibc)
import Glibc
#endif

// ember-bench: the workloads of BENCHMARKS.md. Run through `scripts/bench` (release build).
// `ember-bench core` runs EmberCore's workloads; `--quick` uses smaller sizes for a smoke run.

let arguments = CommandLine.arguments.dropFirst()
let quick = arguments.contains("--quick")
let n = quick ? 100_000 : 1_000_000
let report = BenchReport()
let core = CoreBenchmarks(report: report)
let sync = SyncBenchmarks(report: report)
let throughput = ThroughputBenchmarks(report: report)

/// The realtime pair's workloads; `ember-bench throughput writes` (or `pipelined`, or
/// `fanout`) runs only one, for profiling.
@MainActor func runThroughput(only: String?) {
    report.header("Realtime pair (in-process): acknowledged writes with a listener, and fan-out")
    let writes = quick ? 50_000 : 200_000
    if only == nil || only == "writes" { throughput.acknowledgedWrites(count: writes, window: 1, repetitions: quick ? 1 : 5) }
    if only == nil || only == "pipelined" { throughput.acknowledgedWrites(count: writes, window: 1_000, repetitions: quick ? 1 : 5) }
    if only == nil || only == "fanout" { throughput.fanOut(clients: 100, count: quick ? 500 : 2_000) }
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
}
