import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Redis as a peer: the same workloads as Ember's, run against a `redis-server` at
/// `host:port` that the caller started (loopback, no persistence or AOF as the caller chose).
///
/// Raw throughput comes from `redis-benchmark` (Redis's own C client); the transactional,
/// pub/sub, sorted-set and memory workloads use ``RedisConnection``. Every workload runs one
/// unmeasured warm-up of a tenth of its size, then `runs` measured runs.
struct RedisPeer {
    let host: String
    let port: Int

    /// The channel of ``publishFanOut(subscribers:messages:runs:)``.
    static let channel = "bench:room"
    /// The counter of ``watchMultiIncrements(clients:increments:runs:)``.
    static let counterKey = "bench:counter"
    /// The sorted set of ``sortedSet(members:queries:changes:runs:)``.
    static let scoresKey = "bench:scores"
    /// The hash of ``hashBytesPerField(fields:)``.
    static let hashKey = "bench:hash"

    /// A new connection to the server.
    func connect(timeout: Double = 30) throws(RedisError) -> RedisConnection {
        try RedisConnection(host: host, port: port, timeout: timeout)
    }

    /// `nil` when the server answers PING with PONG, else why not.
    func unavailable() -> String? {
        do {
            let connection = try connect(timeout: 5)
            let reply = try connection.command("PING")
            return reply == .simpleString("PONG") ? nil : "Redis at \(host):\(port) answered PING with \(reply.summary)"
        } catch {
            return "Redis at \(host):\(port): \(error)"
        }
    }

    // MARK: redis-benchmark

    /// SETs per second from `redis-benchmark -t set -n REQUESTS -c CLIENTS -P PIPELINE -r 1000
    /// -d 8`: random keys among 1,000, 8-byte values; one invocation per run.
    func setThroughput(clients: Int, pipeline: Int, requests: Int, runs: Int) -> Measurement {
        benchmark(
            test: "set", options: ["-P", String(pipeline), "-r", "1000", "-d", "8"],
            clients: clients, requests: requests, runs: runs, unit: "writes/s")
    }

    /// INCRs per second from `redis-benchmark -t incr -n REQUESTS -c CLIENTS`: every client
    /// increments the one counter (no `-r`, so one key, like a shared counter); no pipelining.
    func incrThroughput(clients: Int, requests: Int, runs: Int) -> Measurement {
        benchmark(test: "incr", options: [], clients: clients, requests: requests, runs: runs, unit: "increments/s")
    }

    private func benchmark(test: String, options: [String], clients: Int, requests: Int, runs: Int, unit: String) -> Measurement {
        if let reason = unavailable() { return .notMeasured(reason) }
        return Measurement.catching("redis-benchmark") {
            let rates = try Repetitions.measure(size: requests, runs: runs, minimum: clients) { count in
                let arguments = ["redis-benchmark", "-h", host, "-p", String(port), "-t", test, "-n", String(count), "-c", String(clients)]
                    + options + ["--csv", "-q"]
                let output = try PeerProcess.run(arguments, timeout: 600)
                guard output.status == 0, let rate = Self.requestsPerSecond(csv: output.standardOutput) else {
                    let said = output.errorTail().isEmpty ? PeerProcess.tail(output.standardOutput, lines: 3) : output.errorTail()
                    throw PeerFailure("exit status \(output.status): \(said)")
                }
                return rate
            }
            return Figure(runs: rates, unit: .rate(unit))
        }
    }

    /// The `rps` column of `redis-benchmark --csv`'s first result line:
    /// `"test","rps",...` then `"SET","16708.44",...`.
    static func requestsPerSecond(csv: String) -> Double? {
        for line in csv.split(whereSeparator: \.isNewline) where !line.hasPrefix("\"test\"") {
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            if fields.count >= 2, let rate = Double(fields[1]), rate > 0 { return rate }
        }
        return nil
    }

    // MARK: Optimistic transactions

    /// Committed increments per second of `bench:counter` by `clients` threads, each with its own
    /// connection, all released together, each committing `increments / clients` increments
    /// with Redis's optimistic loop: WATCH; GET; then MULTI, SET v+1, EXEC sent in one write (as
    /// client libraries pipeline a transaction); a nil EXEC is a conflict and is retried. Timed
    /// from the release to the last thread's end; the final counter is checked.
    func watchMultiIncrements(clients: Int, increments: Int, runs: Int) -> Measurement {
        if let reason = unavailable() { return .notMeasured(reason) }
        let perClient = max(1, increments / clients)
        return Measurement.catching("WATCH/MULTI") {
            let durations = try Repetitions.measure(size: perClient, runs: runs) { try watchMultiRun(clients: clients, each: $0) }
            return .rate("increments/s", operations: perClient * clients, durations: durations)
        }
    }

    /// `INCR` on `keys` distinct keys sent as one pipeline on one connection: the time until
    /// every reply has come (the peer of `keys` transactions in flight at once).
    func pipelinedIncrements(keys: Int, runs: Int) -> Measurement {
        if let reason = unavailable() { return .notMeasured(reason) }
        return Measurement.catching("INCR pipeline") {
            let durations = try Repetitions.measure(size: keys, runs: runs) { size in
                let connection = try connect()
                let commands = (0..<size).map { ["INCR", "ember-bench:inflight:\($0)"] }
                let start = ContinuousClock.now
                let replies = try connection.pipeline(commands)
                let time = ContinuousClock.now - start
                guard replies.count == size else { throw RedisError.unexpected(command: "INCR", reply: "\(replies.count) replies") }
                return time
            }
            return .latency(durations: durations)
        }
    }

    private func watchMultiRun(clients: Int, each: Int) throws -> Duration {
        let key = Self.counterKey
        let admin = try connect()
        try admin.command("SET", key, "0")
        let team = ThreadTeam<Int>(threads: clients)
        team.start(
            setUp: { _ in try connect() },
            work: { _, connection in
                var committed = 0
                var conflicts = 0
                while committed < each {
                    try Self.expectOK(connection.command("WATCH", key), "WATCH")
                    let current = try connection.command("GET", key)
                    guard let text = current.string, let value = Int(text) else {
                        throw RedisError.unexpected(command: "GET", reply: current.summary)
                    }
                    let replies = try connection.pipeline([["MULTI"], ["SET", key, String(value + 1)], ["EXEC"]])
                    switch replies[2] {
                    case .nullArray: conflicts += 1
                    case .array(let results) where results.count == 1: committed += 1
                    default: throw RedisError.unexpected(command: "EXEC", reply: replies[2].summary)
                    }
                }
                return conflicts
            })
        let start: ContinuousClock.Instant
        do {
            try team.waitUntilReady()
            start = .now
            team.release()
        } catch {
            team.release()
            _ = try? team.results()
            throw error
        }
        let results = try team.results()
        let elapsed = results.map(\.finished).max()! - start
        let final = try admin.command("GET", key)
        guard final.string == String(each * clients) else {
            throw PeerFailure("the counter is \(final.summary) after \(each * clients) committed increments")
        }
        try admin.command("DEL", key)
        return elapsed
    }

    private static func expectOK(_ reply: RESPValue, _ command: String) throws(RedisError) {
        guard reply == .simpleString("OK") else { throw .unexpected(command: command, reply: reply.summary) }
    }

    // MARK: Pub/sub

    /// Events per second delivered to `subscribers` connections SUBSCRIBEd to `bench:room`
    /// (each confirmed before timing) while one connection PUBLISHes `messages` messages, each
    /// waiting for its reply; one thread reads every subscriber (``ReadySockets``: `epoll`) and counts the pushes.
    /// Timed from the first PUBLISH until every subscriber has every message (checked);
    /// the rate is messages × subscribers / time.
    ///
    /// With `latency`, `latencyRuns` more runs paced at half the peak (the median run's message
    /// rate), as Ember's fan-out latency is measured: `latency` gets each run's
    /// publish-to-delivery latencies in seconds, sorted.
    func publishFanOut(
        subscribers: Int, messages: Int, runs: Int, latencyRuns: Int = 1, latency: ((Result<[[Double]], any Error>) -> Void)? = nil
    ) -> Measurement {
        if let reason = unavailable() {
            latency?(.failure(PeerFailure(reason)))
            return .notMeasured(reason)
        }
        return Measurement.catching("PUBLISH fan-out") {
            let results = try Repetitions.measure(size: messages, runs: runs) { try publishRun(subscribers: subscribers, messages: $0) }
            if let latency {
                let median = results.map(\.duration).sorted()[results.count / 2]
                latency(Result {
                    try (0..<max(1, latencyRuns)).map { _ in
                        try publishRun(subscribers: subscribers, messages: messages, interval: median * 2 / messages).latencies
                    }
                })
            }
            return .rate("events/s", operations: messages * subscribers, durations: results.map(\.duration))
        }
    }

    /// What one PUBLISH run measured.
    struct PublishRun {
        /// From the first PUBLISH until every subscriber had every message.
        let duration: Duration
        /// Each push's publish-to-delivery latency, in seconds, sorted.
        let latencies: [Double]
    }

    /// `messages` PUBLISHes, each waiting for its reply, and no faster than one per `interval`
    /// when given.
    private func publishRun(subscribers: Int, messages: Int, interval: Duration? = nil) throws -> PublishRun {
        let clock = ContinuousClock()
        let origin = clock.now
        let sent = NetworkBenchmarks.SentTimes(count: messages)
        let channel = Self.channel
        let publisher = try connect()
        let team = ThreadTeam<[Double]>(threads: 1)
        team.start(
            setUp: { _ in
                var connections: [RedisConnection] = []
                for _ in 0..<subscribers {
                    let connection = try connect()
                    let reply = try connection.command("SUBSCRIBE", channel)
                    guard case .array(let parts) = reply, parts.count == 3, parts[0].string == "subscribe" else {
                        throw RedisError.unexpected(command: "SUBSCRIBE", reply: reply.summary)
                    }
                    connections.append(connection)
                }
                return connections
            },
            work: { _, connections in try Self.receive(messages: messages, on: connections, sent: sent, origin: origin) })
        let start: ContinuousClock.Instant
        do {
            try team.waitUntilReady()
            start = .now
            team.release()
        } catch {
            team.release()
            _ = try? team.results()
            throw error
        }
        var publishFailure: (any Error)?
        for index in 0..<messages {
            if let interval, clock.now < start + interval * index {
                usleep(useconds_t((start + interval * index - clock.now).seconds * 1_000_000))
            }
            sent.set(index, (clock.now - origin).seconds)
            do {
                let reply = try publisher.command("PUBLISH", channel, "m\(index)")
                guard reply == .integer(subscribers) else {
                    throw PeerFailure("PUBLISH reached \(reply.summary) subscribers, not \(subscribers)")
                }
            } catch {
                publishFailure = error
                break
            }
        }
        // The reader gives up 10 s after the last push it saw when the publisher failed.
        let results = try team.results()
        if let publishFailure { throw publishFailure }
        return PublishRun(duration: results[0].finished - start, latencies: results[0].output.sorted())
    }

    /// Reads pushes from every subscriber until each has `messages`; each push's latency
    /// (`m<index>` was sent at `sent[index]`), taken when its socket was read.
    private static func receive(messages: Int, on connections: [RedisConnection], sent: NetworkBenchmarks.SentTimes, origin: ContinuousClock.Instant) throws -> [Double] {
        let messageTag = RESPValue.bulkString(Array("message".utf8))
        var latencies: [Double] = []
        latencies.reserveCapacity(messages * connections.count)
        var counts = Array(repeating: 0, count: connections.count)
        var remaining = messages * connections.count
        let ready = try ReadySockets(sockets: connections.map(\.socket))
        while remaining > 0 {
            let count = try ready.wait(milliseconds: 10_000) { index in
                let connection = connections[index]
                guard try connection.receiveAvailable() > 0 else { throw RedisError.closed }
                let now = (ContinuousClock.now - origin).seconds
                while let push = try connection.bufferedReply() {
                    guard case .array(let parts) = push, parts.count == 3, parts[0] == messageTag,
                        case .bulkString(let payload) = parts[2], payload.first == UInt8(ascii: "m"),
                        let number = Int(String(decoding: payload.dropFirst(), as: UTF8.self)), number < messages
                    else {
                        throw RedisError.unexpected(command: "SUBSCRIBE (a push)", reply: push.summary)
                    }
                    latencies.append(now - sent.get(number))
                    counts[index] += 1
                    remaining -= 1
                }
            }
            if count == 0 { throw PeerFailure("no push for 10 s with \(remaining) messages still missing") }
        }
        guard counts.allSatisfy({ $0 == messages }) else {
            throw PeerFailure("subscribers received \(counts.min()!)–\(counts.max()!) messages, not \(messages) each")
        }
        return latencies
    }

    // MARK: Sorted set

    /// The top-ten query on a sorted set of `members` members (`key(i)` scored `score(i)`,
    /// loaded once untimed with ZADDs of 1,000 members): `topTen` is seconds per
    /// `ZREVRANGE bench:scores 0 9 WITHSCORES` (`queries` in a row per run); `live` is changes
    /// per second, each change a ZADD of one member's new score (``BenchData/changedIndex(_:_:)``,
    /// ``BenchData/changedScore(_:_:)``, `j` running on across runs) then the top-ten query, each
    /// waiting for its reply. The key is deleted at the end.
    func sortedSet(members: Int, queries: Int, changes: Int, runs: Int) -> (topTen: Measurement, live: Measurement) {
        if let reason = unavailable() { return (.notMeasured(reason), .notMeasured(reason)) }
        let key = Self.scoresKey
        let connection: RedisConnection
        do {
            connection = try connect(timeout: 120)
            try connection.command("DEL", key)
            let added = try Self.loadInBatches(connection, count: members) { range in
                var command = ["ZADD", key]
                command.reserveCapacity(2 + 2 * range.count)
                for i in range {
                    command.append(String(BenchData.score(i)))
                    command.append(BenchData.key(i))
                }
                return command
            }
            guard added == members else { throw PeerFailure("ZADD added \(added) members, not \(members)") }
        } catch {
            let reason = "loading the sorted set: \(error)"
            return (.notMeasured(reason), .notMeasured(reason))
        }
        defer { _ = try? connection.command("DEL", key) }
        let expected = min(members, 10) * 2
        func topTenQuery() throws {
            let reply = try connection.command("ZREVRANGE", key, "0", "9", "WITHSCORES")
            guard case .array(let elements) = reply, elements.count == expected else {
                throw RedisError.unexpected(command: "ZREVRANGE", reply: reply.summary)
            }
        }
        let topTen = Measurement.catching("ZREVRANGE") {
            let durations = try Repetitions.measure(size: queries, runs: runs) { count in
                try Stopwatch.measure { for _ in 0..<count { try topTenQuery() } }
            }
            return .latency(operations: queries, durations: durations)
        }
        let live = Measurement.catching("ZADD + ZREVRANGE") {
            var j = 0
            let durations = try Repetitions.measure(size: changes, runs: runs) { count in
                try Stopwatch.measure {
                    for _ in 0..<count {
                        let member = BenchData.key(BenchData.changedIndex(j, members))
                        let reply = try connection.command("ZADD", key, String(BenchData.changedScore(j, members)), member)
                        // 0: the member existed, its score changed.
                        guard reply == .integer(0) else { throw RedisError.unexpected(command: "ZADD", reply: reply.summary) }
                        try topTenQuery()
                        j += 1
                    }
                }
            }
            return .rate("changes/s", operations: changes, durations: durations)
        }
        return (topTen, live)
    }

    /// Sends `count` items as commands of up to 1,000 items each (`command(range)`), 16 commands
    /// per write; the sum of their integer replies.
    private static func loadInBatches(_ connection: RedisConnection, count: Int, command: (Range<Int>) -> [String]) throws -> Int {
        var total = 0
        var start = 0
        while start < count {
            var commands: [[String]] = []
            while start < count && commands.count < 16 {
                let end = min(start + 1_000, count)
                commands.append(command(start..<end))
                start = end
            }
            for reply in try connection.pipeline(commands) {
                guard case .integer(let added) = reply else { throw RedisError.unexpected(command: commands[0][0], reply: reply.summary) }
                total += added
            }
        }
        return total
    }

    // MARK: Memory

    /// Bytes of `used_memory` per field of a hash of `fields` fields (`key(i)` → `i`, HSETs of
    /// 1,000 fields, untimed): the growth of `INFO memory`'s `used_memory` over the load,
    /// divided by `fields`; one run. Past `hash-max-listpack-entries` fields (512 on Redis
    /// 7.0.15 as installed here) `OBJECT ENCODING` says `hashtable`, so a million fields measure
    /// the hash table, not the compact listpack. The key is deleted after.
    func hashBytesPerField(fields: Int) -> Measurement {
        if let reason = unavailable() { return .notMeasured(reason) }
        let key = Self.hashKey
        return Measurement.catching("HSET memory") {
            let connection = try connect(timeout: 120)
            try connection.command("DEL", key)
            defer { _ = try? connection.command("DEL", key) }
            let before = try Self.usedMemory(connection)
            let added = try Self.loadInBatches(connection, count: fields) { range in
                var command = ["HSET", key]
                command.reserveCapacity(2 + 2 * range.count)
                for i in range {
                    command.append(BenchData.key(i))
                    command.append(String(i))
                }
                return command
            }
            guard added == fields else { throw PeerFailure("HSET added \(added) fields, not \(fields)") }
            let after = try Self.usedMemory(connection)
            return Figure(runs: [Double(after - before) / Double(fields)], unit: .bytes("B/leaf"))
        }
    }

    /// `used_memory` from `INFO memory`.
    private static func usedMemory(_ connection: RedisConnection) throws -> Int {
        let reply = try connection.command("INFO", "memory")
        guard let text = reply.string else { throw RedisError.unexpected(command: "INFO memory", reply: reply.summary) }
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("used_memory:") {
            if let bytes = Int(line.dropFirst("used_memory:".count).trimmingCharacters(in: .whitespaces)) { return bytes }
        }
        throw RedisError.unexpected(command: "INFO memory", reply: "no used_memory line")
    }
}
