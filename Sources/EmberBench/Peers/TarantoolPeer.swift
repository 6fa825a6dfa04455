import Foundation

/// Tarantool as a peer: each workload is a Lua script run by `tarantool SCRIPT` in a fresh
/// directory under `/tmp` (its `work_dir`, `memtx_dir` and `wal_dir`, removed after), with no
/// `listen` (no network at all) and the log in that directory.
///
/// The script times itself with `clock.monotonic()`, runs one unmeasured warm-up of a tenth of
/// the size, then `runs` measured runs, and prints `RESULT <seconds> <seconds> ...` (one value
/// per measured run). The Lua computes ``BenchData``'s formulas in doubles, exact at these
/// sizes (`i * 2654435761` stays below 2^53 for `i` up to 3.3 million).
struct TarantoolPeer {
    let executable: String

    init(executable: String = "tarantool") {
        self.executable = executable
    }

    /// `nil` when `tarantool --version` runs, else why not.
    func unavailable() -> String? {
        do {
            let output = try PeerProcess.run([executable, "--version"], timeout: 30)
            if output.status == 0 && output.standardOutput.hasPrefix("Tarantool") { return nil }
            return "\(executable) --version: exit status \(output.status) \(output.errorTail())"
        } catch {
            return "\(error)"
        }
    }

    // MARK: Workloads

    /// Durable-write rate: `fibers` fibers each replace `count / fibers` tuples `{path, value}` in
    /// a memtx space (TREE primary key on the string path), cycling over its own 1,000 paths
    /// (`bench/w<f>/k<i>`), each replace its own autocommit transaction that waits for its WAL
    /// write (`wal_mode` `write`: written, not synced; `fsync`: synced); Tarantool's WAL thread
    /// groups the writes of concurrent fibers itself.
    func writes(walMode: String, fibers: Int, count: Int, runs: Int) -> Measurement {
        guard walMode == "write" || walMode == "fsync" else { return .notMeasured("wal_mode '\(walMode)' is neither 'write' nor 'fsync'") }
        if let reason = unavailable() { return .notMeasured(reason) }
        let fibers = max(1, fibers)
        let perFiber = max(1, count / fibers)
        let body = """
            configure('\(walMode)')
            local FIBERS, PER_FIBER, RUNS = \(fibers), \(perFiber), \(runs)
            local s = box.schema.space.create('bench')
            s:create_index('pk', {type = 'tree', parts = {1, 'string'}})
            local paths = {}
            for f = 1, FIBERS do
              local mine = {}
              for i = 1, 1000 do mine[i] = 'bench/w' .. (f - 1) .. '/k' .. (i - 1) end
              paths[f] = mine
            end
            local function run(per)
              local done = fiber.channel(FIBERS)
              local start = clock.monotonic()
              for f = 1, FIBERS do
                fiber.create(function()
                  local ok, err = pcall(function()
                    local mine = paths[f]
                    for i = 0, per - 1 do s:replace{mine[i % 1000 + 1], i} end
                  end)
                  done:put(ok or tostring(err))
                end)
              end
              for _ = 1, FIBERS do
                local outcome = done:get()
                if outcome ~= true then error(outcome) end
              end
              return clock.monotonic() - start
            end
            run(math.max(1, math.floor(PER_FIBER / 10)))
            local values = {}
            for r = 1, RUNS do values[r] = seconds(run(PER_FIBER)) end
            print('RESULT ' .. table.concat(values, ' '))
            """
        return Measurement.catching("tarantool") {
            let durations = try runScript(body, prefix: "tarantool-writes").map { Duration.seconds($0) }
            guard durations.count == runs else { throw PeerFailure("the script gave \(durations.count) values, not \(runs)") }
            return .rate("writes/s", operations: perFiber * fibers, durations: durations)
        }
    }

    /// The top-ten query on `tuples` tuples `{key(i), score(i)}` (`wal_mode` `none`, a memtx
    /// space with a TREE primary key on the key and a non-unique TREE index on the unsigned
    /// score; loaded untimed in transactions of 10,000): `topTen` is seconds per
    /// `index.score:select({}, {iterator = 'REQ', limit = 10})`; `live` is changes per second,
    /// each an autocommit `update(key, {{'=', 2, newScore}})` then the top-ten select, with
    /// ``BenchData``'s change formulas, `j` running on across runs.
    func query(tuples: Int, queries: Int, changes: Int, runs: Int) -> (topTen: Measurement, live: Measurement) {
        if let reason = unavailable() { return (.notMeasured(reason), .notMeasured(reason)) }
        let body = """
            configure('none')
            local N, QUERIES, CHANGES, RUNS = \(tuples), \(queries), \(changes), \(runs)
            local s = box.schema.space.create('items')
            s:create_index('pk', {type = 'tree', parts = {1, 'string'}})
            local by_score = s:create_index('score', {type = 'tree', unique = false, parts = {2, 'unsigned'}})
            box.begin()
            for i = 0, N - 1 do
              s:insert{key(i), score(i)}
              if i % 10000 == 9999 then box.commit() box.begin() end
            end
            box.commit()
            local expected = math.min(N, 10)
            local function top_ten()
              local rows = by_score:select({}, {iterator = 'REQ', limit = 10})
              if #rows ~= expected then error('the top ten gave ' .. #rows .. ' tuples') end
            end
            local values = {}
            for r = 0, RUNS do
              local count = r == 0 and math.max(1, math.floor(QUERIES / 10)) or QUERIES
              local start = clock.monotonic()
              for _ = 1, count do top_ten() end
              if r > 0 then table.insert(values, seconds(clock.monotonic() - start)) end
            end
            local j = 0
            for r = 0, RUNS do
              local count = r == 0 and math.max(1, math.floor(CHANGES / 10)) or CHANGES
              local start = clock.monotonic()
              for _ = 1, count do
                local k = key((j * 7919) % N)
                if s:update(k, {{'=', 2, score(N + j)}}) == nil then error('no tuple ' .. k) end
                top_ten()
                j = j + 1
              end
              if r > 0 then table.insert(values, seconds(clock.monotonic() - start)) end
            end
            print('RESULT ' .. table.concat(values, ' '))
            """
        let durations: [Duration]
        do {
            durations = try runScript(body, prefix: "tarantool-query").map { Duration.seconds($0) }
            guard durations.count == 2 * runs else { throw PeerFailure("the script gave \(durations.count) values, not \(2 * runs)") }
        } catch {
            let reason = "tarantool: \(error)"
            return (.notMeasured(reason), .notMeasured(reason))
        }
        return (
            .measured(.latency(operations: queries, durations: Array(durations[..<runs]))),
            .measured(.rate("changes/s", operations: changes, durations: Array(durations[runs...]))))
    }

    /// Seconds to recover a memtx space of `tuples` tuples `{"items/o<i/1000>/k<i%1000>", i}`
    /// (1,000 objects of 1,000 leaves, as Ember's reopen workload) from a snapshot and answer
    /// the first `get`: built once (`wal_mode` `write`, then `box.snapshot()`), then each run is
    /// a new `tarantool` process on the same directory, timed inside the script from before
    /// `box.cfg` (which recovers from the snapshot, rebuilding the index) to after
    /// `get('items/o500/k500')` (the probe is the last tuple below 500,500); one warm-up process,
    /// then `runs`. This is recovery from a snapshot (no xlog to replay); process start and Lua
    /// start-up are not included.
    func recovery(tuples: Int, runs: Int) -> Measurement {
        if let reason = unavailable() { return .notMeasured(reason) }
        let tuples = max(1, tuples)
        let probe = min(500_500, tuples - 1)
        let probePath = "items/o\(probe / 1000)/k\(probe % 1000)"
        let build = """
            configure('write')
            local N = \(tuples)
            local s = box.schema.space.create('leaves')
            s:create_index('pk', {type = 'tree', parts = {1, 'string'}})
            box.begin()
            for i = 0, N - 1 do
              s:insert{'items/o' .. math.floor(i / 1000) .. '/k' .. (i % 1000), i}
              if i % 1000 == 999 then box.commit() box.begin() end
            end
            box.commit()
            box.snapshot()
            print('RESULT 0')
            """
        let reopen = """
            configure('write')
            local t = box.space.leaves:get('\(probePath)')
            local elapsed = clock.monotonic() - START
            if t == nil or t[2] ~= \(probe) then error('get gave ' .. tostring(t)) end
            print('RESULT ' .. seconds(elapsed))
            """
        return Measurement.catching("tarantool") {
            let directory = try PeerDirectory(prefix: "tarantool-recovery")
            defer { directory.remove() }
            _ = try runScript(build, in: directory)
            var durations: [Duration] = []
            for run in 0...runs {
                let values = try runScript(reopen, in: directory)
                guard values.count == 1 else { throw PeerFailure("the script gave \(values.count) values, not 1") }
                if run > 0 { durations.append(.seconds(values[0])) }
            }
            return .latency(durations: durations)
        }
    }

    // MARK: Running a script

    /// Runs `body` in a fresh directory, removed after; the numbers of its `RESULT` line.
    private func runScript(_ body: String, prefix: String) throws -> [Double] {
        let directory = try PeerDirectory(prefix: prefix)
        defer { directory.remove() }
        return try runScript(body, in: directory)
    }

    /// Runs `body` (after the preamble: `clock`, `fiber`, `START`, `configure(walMode)`,
    /// `key(i)`, `score(i)`, `seconds(x)`) in `directory`; the numbers of its `RESULT` line.
    private func runScript(_ body: String, in directory: PeerDirectory) throws -> [Double] {
        let script = directory.file("bench.lua")
        let log = directory.file("tarantool.log")
        let source = """
            local clock = require('clock')
            local START = clock.monotonic()
            local fiber = require('fiber')
            local DIR = '\(directory.path)'
            local function configure(wal_mode)
              box.cfg{
                work_dir = DIR, memtx_dir = DIR, wal_dir = DIR, log = DIR .. '/tarantool.log',
                wal_mode = wal_mode, memtx_memory = 2 * 1024 ^ 3, checkpoint_interval = 0,
              }
            end
            local function key(i) return 'k' .. string.format('%d', i) end
            local function score(i) return (i * 2654435761) % 1000000 end
            local function seconds(x) return string.format('%.9f', x) end
            local ok, err = pcall(function()
            \(body)
            end)
            if not ok then
              io.stderr:write('ERROR ' .. tostring(err) .. '\\n')
              os.exit(1)
            end
            os.exit(0)
            """
        do {
            try source.write(toFile: script, atomically: false, encoding: .utf8)
        } catch {
            throw PeerFailure("cannot write \(script): \(error)")
        }
        let output = try PeerProcess.run([executable, script], timeout: 900)
        let resultLine = output.standardOutput.split(whereSeparator: \.isNewline).last { $0.hasPrefix("RESULT") }
        guard output.status == 0, let resultLine else {
            let logText = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let said = [output.errorTail(3), PeerProcess.tail(logText, lines: 3)].filter { !$0.isEmpty }.joined(separator: " | ")
            throw PeerFailure("exit status \(output.status): \(said.isEmpty ? "no RESULT line" : said)")
        }
        let fields = resultLine.split(separator: " ").dropFirst()
        let values = fields.compactMap { Double($0) }
        guard values.count == fields.count else { throw PeerFailure("unreadable result line '\(resultLine)'") }
        return values
    }
}
