import Foundation

/// Issue 7's Lua workload: a loop of writes inside one Lua script, run by the release `ember`
/// (`ember --memory --no-rc -e CHUNK`) and, in the same run, by Redis inside one `EVAL`
/// (`redis-cli -e -s SOCKET EVAL SCRIPT 0 N`) on a server that `scripts/bench` started.
/// Each command is timed from outside with ``StartupBenchmarks/time(_:)``: one warm-up run, then
/// the median of `runs`; the same command with N = 0 (process start-up, connection, an empty
/// loop) is timed beside it and subtracted, so that the figure is the loop itself.
struct LuaBenchmarks {
    /// One loop of writes, as an Ember chunk and as a Redis script.
    struct Workload {
        let name: String
        /// A short name for the notes under the table.
        let label: String
        let count: Int
        /// The Ember chunk that writes `n` times.
        let emberChunk: (Int) -> String
        /// The Redis script; `ARGV[1]` is the number of writes.
        let redisScript: String
    }

    /// The median of each command's runs (`nil`: it could not be started or failed).
    private struct Medians {
        var loop: Duration?
        var baseline: Duration?
    }

    /// One workload's figures; `redis` is `nil` when Redis is not measured.
    private struct Figures {
        let workload: Workload
        let ember: Medians
        let redis: Medians?
    }

    let ember: String
    /// The Unix socket of a running `redis-server`, or `nil` when Redis is not measured.
    let redisSocket: String?
    let runs: Int

    static let distinctChildren = "for i = 1, tonumber(ARGV[1]) do redis.call('SET', 'bench:' .. i, i) end return 1"
    static let singleKey = "for i = 1, tonumber(ARGV[1]) do redis.call('SET', 'bench:x', i) end return 1"

    static func workloads(quick: Bool) -> [Workload] {
        let many = quick ? 100_000 : 1_000_000
        let waited = quick ? 10_000 : 100_000
        return [
            Workload(
                name: "`r:child(tostring(i)):set(i)`, not waiting, then `ember.flush()` (Redis: `SET bench:i i`)",
                label: "distinct children",
                count: many,
                emberChunk: { n in
                    "local N = \(n) local r = db:ref(\"bench\") for i = 1, N do r:child(tostring(i)):set(i) end ember.flush()"
                },
                redisScript: distinctChildren),
            Workload(
                name: "`r:set(i)` on one location (`bench/x`), not waiting, then `ember.flush()` (Redis: `SET bench:x i`)",
                label: "one location",
                count: many,
                emberChunk: { n in
                    "local N = \(n) local r = db:ref(\"bench/x\") for i = 1, N do r:set(i) end ember.flush()"
                },
                redisScript: singleKey),
            Workload(
                name: "`r:child(tostring(i)):set(i):wait()`, each acknowledged before the next (Redis: `SET bench:i i`, the same `EVAL`)",
                label: "with `:wait()`",
                count: waited,
                emberChunk: { n in
                    "local N = \(n) local r = db:ref(\"bench\") for i = 1, N do r:child(tostring(i)):set(i):wait() end"
                },
                redisScript: distinctChildren),
        ]
    }

    func emberArguments(_ workload: Workload, count: Int) -> [String] {
        [ember, "--memory", "--no-rc", "-e", workload.emberChunk(count)]
    }

    func redisArguments(_ workload: Workload, count: Int, socket: String) -> [String] {
        ["redis-cli", "-e", "-s", socket, "EVAL", workload.redisScript, "0", String(count)]
    }

    /// Empties Redis's keyspace (untimed) so that every run starts empty, as every `ember
    /// --memory` process does.
    func flushRedis(socket: String) -> Bool {
        StartupBenchmarks.time(["redis-cli", "-e", "-s", socket, "FLUSHALL", "SYNC"]) != nil
    }

    /// Runs every workload and prints one Markdown table.
    func run(workloads: [Workload]) {
        print("\n### Lua scripting: a loop of writes in one script, Ember beside Redis (median of \(runs) runs after 1 warm-up, minus the same command with N = 0)\n")
        if redisSocket == nil {
            print("Redis was not measured (no redis-server: `scripts/bench` installs and starts one when it can).\n")
        }
        var results: [Figures] = []
        for workload in workloads {
            let (emberMedians, redisMedians) = measure(workload)
            results.append(Figures(workload: workload, ember: emberMedians, redis: redisMedians))
        }
        print("| workload | N | Ember: loop | Ember: writes/s | Redis: loop | Redis: writes/s |")
        print("|---|---:|---:|---:|---:|---:|")
        for result in results {
            let count = result.workload.count
            let emberCells = Self.cells(result.ember, count: count)
            var redisCells = (loop: "not measured", rate: "")
            if let redisMedians = result.redis { redisCells = Self.cells(redisMedians, count: count) }
            print("| \(result.workload.name) | \(Self.grouped(count)) | \(emberCells.loop) | \(emberCells.rate) | \(redisCells.loop) | \(redisCells.rate) |")
        }
        print()
        for result in results {
            var line = "- N = 0 (start-up and connection, subtracted above), \(result.workload.label): Ember \(Self.milliseconds(result.ember.baseline))"
            if let redisMedians = result.redis { line += ", Redis \(Self.milliseconds(redisMedians.baseline))" }
            print(line)
        }
        print("- Ember: `ember --memory --no-rc -e CHUNK`, a fresh in-memory database in each process. Redis: `redis-cli -e -s SOCKET EVAL SCRIPT 0 N` on an in-memory `redis-server` (`--save '' --appendonly no`, no persistence, as Ember's `--memory`), its keyspace emptied (`FLUSHALL SYNC`, untimed) before every run.")
        print("- With `:wait()`: Redis's analogue is the same `EVAL`; inside a script every `redis.call` has completed when it returns, so there is nothing to wait for.")
        for result in results where result.ember.loop == nil || result.ember.baseline == nil {
            print("- Ember failed or could not start (\(result.workload.label)); run it by hand to see why: `ember --memory --no-rc -e '\(result.workload.emberChunk(result.workload.count))'`")
        }
    }

    /// One workload's figures for the comparison table: each run's loop time minus the median
    /// of the N = 0 runs, as writes per second.
    func figures(_ workload: Workload) -> (ember: Measurement, redis: Measurement) {
        let samples = measureSamples(workload)
        func figure(_ loop: [Duration], _ baseline: [Duration], failed: Bool, who: String) -> Measurement {
            guard !failed, let base = Self.median(baseline) else { return .notMeasured("\(who) failed or could not start") }
            let rates = loop.map { Double(workload.count) / max(($0 - base).seconds, 1e-9) }
            return .measured(Figure(runs: rates, unit: .rate("writes/s")))
        }
        let ember = figure(samples.emberLoop, samples.emberBaseline, failed: samples.emberFailed, who: "ember")
        guard redisSocket != nil else { return (ember, .notMeasured("no redis-server")) }
        return (ember, figure(samples.redisLoop, samples.redisBaseline, failed: samples.redisFailed, who: "redis-cli EVAL"))
    }

    /// Every run's times of one workload, Ember and Redis, with N and with 0.
    private struct Samples {
        var emberLoop: [Duration] = [], emberBaseline: [Duration] = []
        var redisLoop: [Duration] = [], redisBaseline: [Duration] = []
        var emberFailed = false, redisFailed = false
    }

    /// The medians of one workload's runs (see ``measureSamples(_:)``).
    private func measure(_ workload: Workload) -> (Medians, Medians?) {
        let samples = measureSamples(workload)
        let emberMedians = samples.emberFailed ? Medians() : Medians(loop: Self.median(samples.emberLoop), baseline: Self.median(samples.emberBaseline))
        guard redisSocket != nil else { return (emberMedians, nil) }
        let redisMedians = samples.redisFailed ? Medians() : Medians(loop: Self.median(samples.redisLoop), baseline: Self.median(samples.redisBaseline))
        return (emberMedians, redisMedians)
    }

    /// Times one workload: the warm-up round, then `runs` rounds of Ember and Redis with N and
    /// with 0, interleaved so that they share the machine's state.
    private func measureSamples(_ workload: Workload) -> Samples {
        var samples = Samples()
        for round in 0..<(runs + 1) {
            if !samples.emberFailed {
                if let loop = StartupBenchmarks.time(emberArguments(workload, count: workload.count)),
                   let baseline = StartupBenchmarks.time(emberArguments(workload, count: 0)) {
                    if round > 0 {
                        samples.emberLoop.append(loop)
                        samples.emberBaseline.append(baseline)
                    }
                } else {
                    samples.emberFailed = true
                }
            }
            if let redisSocket, !samples.redisFailed {
                if flushRedis(socket: redisSocket),
                   let loop = StartupBenchmarks.time(redisArguments(workload, count: workload.count, socket: redisSocket)),
                   flushRedis(socket: redisSocket),
                   let baseline = StartupBenchmarks.time(redisArguments(workload, count: 0, socket: redisSocket)) {
                    if round > 0 {
                        samples.redisLoop.append(loop)
                        samples.redisBaseline.append(baseline)
                    }
                } else {
                    samples.redisFailed = true
                }
            }
        }
        if let redisSocket, !samples.redisFailed { _ = flushRedis(socket: redisSocket) }
        return samples
    }

    private static func median(_ samples: [Duration]) -> Duration? {
        samples.isEmpty ? nil : samples.sorted()[samples.count / 2]
    }

    private static func milliseconds(_ duration: Duration?) -> String {
        guard let duration else { return "failed" }
        return String(format: "%.1f ms", duration.seconds * 1e3)
    }

    /// The loop's time and its writes per second, or why there are none.
    private static func cells(_ medians: Medians, count: Int) -> (loop: String, rate: String) {
        guard let loop = medians.loop, let baseline = medians.baseline else { return ("failed", "") }
        let elapsed = loop.seconds - baseline.seconds
        guard elapsed > 0 else { return ("≤ 0 ms (within noise)", "—") }
        let perSecond = Double(count) / elapsed
        return (String(format: "%.0f ms", elapsed * 1e3), grouped(Int(perSecond.rounded())))
    }

    /// 1234567 as "1,234,567".
    private static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }
}
