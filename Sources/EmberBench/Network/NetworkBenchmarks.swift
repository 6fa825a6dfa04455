import EmberTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Issue 22's figures: a real `ember serve` process (in memory) driven over loopback TCP as
/// Firebase's clients drive it, by ``BenchSocket``s on threads of this process.
///
/// - acknowledged writes over WebSocket from 1 and 10 writers (each waits for its `ok` before
///   its next `p`), with a listener connection that receives every one;
/// - one writer's messages fanned out to many listening WebSockets: deliveries per second
///   unpaced, and write-to-delivery latency (p50, p99) paced at half that peak;
/// - REST `PUT`s per second over keep-alive connections;
/// - the server's resident memory per idle WebSocket connection.
struct NetworkBenchmarks {
    /// What serves the workloads.
    enum Served: Sendable {
        /// `ember serve --memory`, run from the `ember` executable at `path`.
        case ember(path: String)
        /// ``FloorServer`` (this program's `network-floor`): the network stack without a database.
        case floor
    }

    let served: Served

    /// A running `ember serve --memory`, stopped with SIGTERM by ``stop()``.
    final class Server: @unchecked Sendable {
        let process = Process()
        private(set) var port = 0

        init(_ served: Served) throws {
            Self.raiseDescriptorLimit()
            switch served {
            case .ember(let path):
                process.executableURL = URL(fileURLWithPath: path)
                process.arguments = ["serve", "--memory", "--port", "0", "-q"]
            case .floor:
                process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
                process.arguments = ["network-floor", "--port", "0"]
            }
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let (port, text) = ServeBanner.waitForPort(in: output.fileHandleForReading, of: process, timeout: 30)
            if let port {
                self.port = port
                return
            }
            stop()
            throw BenchSocket.Failure(description: "ember serve did not start: \(text)")
        }

        func stop() {
            guard process.isRunning else { return }
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }

        /// The processor time the server has used so far (user and system), from
        /// `/proc/PID/stat`, in seconds.
        var processorSeconds: Double {
            guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
                let close = text.lastIndex(of: ")")
            else { return 0 }
            // After the command's closing parenthesis: state is field 3; utime and stime 14, 15.
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
            return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }

        /// The server's resident memory, from `/proc/PID/status` (`VmRSS`).
        var residentBytes: Int {
            guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
                let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
            else { return 0 }
            return kilobytes * 1024
        }

        /// Thousands of sockets need more descriptors than the usual soft limit of 1,024; the
        /// server, started after, inherits the raised limit.
        static func raiseDescriptorLimit() {
            var limit = rlimit()
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            limit.rlim_cur = limit.rlim_max
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
    }

    private static func connect(_ server: Server) throws -> BenchSocket {
        let socket = try BenchSocket(port: server.port)
        try socket.upgrade(namespace: "bench")
        return socket
    }

    /// A request frame of the realtime protocol.
    private static func request(_ id: Int, _ action: String, _ body: String) -> String {
        #"{"t":"d","d":{"r":\#(id),"a":"\#(action)","b":\#(body)}}"#
    }

    /// Sends a listen on `path` and waits for its `ok`.
    private static func listen(_ socket: BenchSocket, path: String) throws {
        try socket.send(request(1, "q", #"{"p":"\#(path)","h":""}"#))
        while true {
            let frame = try socket.nextFrame()
            if frame.contains(#""r":1"#) {
                guard frame.contains(#""s":"ok""#) else { throw BenchSocket.Failure(description: "listen refused: \(frame)") }
                return
            }
        }
    }

    // MARK: Writes

    /// `writers` connections each setting `count / writers` leaves, each waiting for its `ok`
    /// before its next write; one more connection listening to all of them. Timed until every
    /// write is acknowledged and every update received.
    ///
    /// One thread drives every writer through `epoll` (``ReadySockets``), as `redis-benchmark`
    /// drives its clients (the Redis figures beside these): a thread per writer cost the client
    /// side a wake-up of its own per reply, on the two cores the server under test needs. The
    /// listener is another client, on a thread of its own.
    func writesOnce(writers: Int, count: Int) throws -> Duration {
        try writesMeasured(writers: writers, count: count).duration
    }

    /// ``writesOnce(writers:count:)`` with the server's processor time over the run (seconds).
    func writesMeasured(writers: Int, count: Int) throws -> (duration: Duration, serverSeconds: Double) {
        let server = try Server(served)
        defer { server.stop() }
        let perWriter = count / writers
        let total = perWriter * writers
        let listener = try Self.connect(server)
        try Self.listen(listener, path: "/bench")
        let team = ThreadTeam<Int>(threads: 2)
        team.start(
            setUp: { index -> [BenchSocket] in
                if index == 1 { return [listener] }
                return try (0..<writers).map { _ in try Self.connect(server) }
            },
            work: { index, sockets in
                if index == 1 {
                    // The listener: one update per write.
                    var seen = 0
                    while seen < total {
                        if try sockets[0].nextPayload().contains(#""a":"d""#) { seen += 1 }
                    }
                    return seen
                }
                return try Self.drive(sockets, perWriter: perWriter)
            })
        try team.waitUntilReady()
        let processorBefore = server.processorSeconds
        let start = ContinuousClock.now
        team.release()
        let results = try team.results()
        return (results.map(\.finished).max()! - start, server.processorSeconds - processorBefore)
    }

    /// Has each of `writers` set `perWriter` leaves, one at a time (the next once the last is
    /// acknowledged), all of them from this thread through `epoll`; the writes made.
    private static func drive(_ writers: [BenchSocket], perWriter: Int) throws -> Int {
        let ready = try ReadySockets(sockets: writers.map(\.socket))
        func write(_ writer: Int, _ sequence: Int) throws {
            try writers[writer].send(request(sequence + 2, "p", #"{"p":"/bench/w\#(writer)/k\#(sequence % 1_000)","d":\#(sequence)}"#))
        }
        var acknowledged = Array(repeating: 0, count: writers.count)
        var finished = 0
        for writer in writers.indices { try write(writer, 0) }
        while finished < writers.count {
            let count = try ready.wait(milliseconds: 10_000) { index in
                let socket = writers[index]
                guard try socket.receiveAvailable() > 0 else { throw BenchSocket.Failure(description: "the server closed a connection") }
                while let payload = try socket.bufferedPayload() {
                    guard payload.contains(#""s":"ok""#) else { throw BenchSocket.Failure(description: "a write was refused: \(payload.text)") }
                    acknowledged[index] += 1
                    if acknowledged[index] < perWriter {
                        try write(index, acknowledged[index])
                    } else {
                        finished += 1
                    }
                }
            }
            if count == 0 { throw BenchSocket.Failure(description: "no answer for 10 s (\(finished) of \(writers.count) writers done)") }
        }
        return perWriter * writers.count
    }

    // MARK: Fan-out

    /// What one fan-out run measured.
    struct FanOut {
        /// The whole run.
        let duration: Duration
        /// Every delivery's write-to-delivery latency, in seconds, sorted.
        let latencies: [Double]
        /// The server's processor time over the run, in seconds.
        let serverSeconds: Double

        func percentile(_ p: Double) -> Double { latencies.percentile(p) }
    }

    /// `connections` WebSockets listen to `room/message`; one more sets it `messages` times (each
    /// acknowledged before the next, and no faster than one per `interval` when given). One
    /// thread reads every listener (``ReadySockets``: `epoll`).
    func fanOutOnce(connections: Int, messages: Int, interval: Duration? = nil) throws -> FanOut {
        let server = try Server(served)
        defer { server.stop() }
        var listeners: [BenchSocket] = []
        for _ in 0..<connections {
            let socket = try Self.connect(server)
            try Self.listen(socket, path: "/room/message")
            listeners.append(socket)
        }
        let writer = try Self.connect(server)
        let clock = ContinuousClock()
        let sockets = listeners
        let origin = clock.now
        // Send times are written before the send and read after the delivery (a later moment,
        // through the server): the lock orders them.
        let sent = SentTimes(count: messages)
        let team = ThreadTeam<[Double]>(threads: 1)
        team.start(
            setUp: { _ in sockets },
            work: { _, listeners in try Self.receive(messages: messages, on: listeners, sent: sent, origin: origin) })
        try team.waitUntilReady()
        let processorBefore = server.processorSeconds
        let start = clock.now
        team.release()
        for index in 0..<messages {
            let due = interval.map { start + $0 * index }
            if let due, clock.now < due {
                let wait = (due - clock.now).seconds
                usleep(useconds_t(wait * 1_000_000))
            }
            sent.set(index, (clock.now - origin).seconds)
            try writer.send(Self.request(index + 2, "p", #"{"p":"/room/message","d":{"n":\#(index)}}"#))
            let answer = try writer.nextPayload()
            guard answer.contains(#""s":"ok""#) else { throw BenchSocket.Failure(description: "a write was refused: \(answer.text)") }
        }
        let result = try team.results()[0]
        return FanOut(duration: result.finished - start, latencies: result.output.sorted(), serverSeconds: server.processorSeconds - processorBefore)
    }

    /// Reads updates from every listener until each has `messages`; the latencies.
    private static func receive(messages: Int, on listeners: [BenchSocket], sent: SentTimes, origin: ContinuousClock.Instant) throws -> [Double] {
        var latencies: [Double] = []
        latencies.reserveCapacity(messages * listeners.count)
        var remaining = messages * listeners.count
        let ready = try ReadySockets(sockets: listeners.map(\.socket))
        while remaining > 0 {
            let count = try ready.wait(milliseconds: 10_000) { index in
                let listener = listeners[index]
                guard try listener.receiveAvailable() > 0 else { throw BenchSocket.Failure(description: "a listener was closed") }
                // The moment this socket's bytes were taken (not when the wait returned: going
                // through 1,000 ready sockets takes milliseconds).
                let now = (ContinuousClock.now - origin).seconds
                while let frame = try listener.bufferedPayload() {
                    guard let number = frame.number(after: #""n":"#) else { continue }
                    latencies.append(now - sent.get(number))
                    remaining -= 1
                }
            }
            if count == 0 { throw BenchSocket.Failure(description: "no update for 10 s with \(remaining) deliveries missing") }
        }
        return latencies
    }

    /// When each message was sent, in seconds from the run's origin.
    final class SentTimes: @unchecked Sendable {
        private let lock = NSLock()
        private var times: [Double]

        init(count: Int) { times = Array(repeating: 0, count: count) }
        func set(_ index: Int, _ time: Double) { lock.withLock { times[index] = time } }
        func get(_ index: Int) -> Double { lock.withLock { times[index] } }
    }

    // MARK: REST

    /// `clients` keep-alive connections each `PUT`ting `count / clients` leaves.
    func restWritesOnce(clients: Int, count: Int) throws -> Duration {
        let server = try Server(served)
        defer { server.stop() }
        let perClient = count / clients
        let team = ThreadTeam<Int>(threads: clients)
        team.start(
            setUp: { _ in try BenchSocket(port: server.port) },
            work: { index, socket in
                for sequence in 0..<perClient {
                    let answer = try socket.http("PUT", "/bench/c\(index)/k\(sequence % 1_000).json?ns=bench", body: String(sequence))
                    guard answer.status == 200 else { throw BenchSocket.Failure(description: "PUT answered \(answer.status): \(answer.body)") }
                }
                return perClient
            })
        try team.waitUntilReady()
        let start = ContinuousClock.now
        team.release()
        return try team.results().map(\.finished).max()! - start
    }

    // MARK: Memory

    /// The server's resident memory per idle WebSocket (upgraded, hello received, nothing
    /// else), from its growth over `connections` of them.
    func bytesPerIdleConnection(connections: Int) throws -> Double {
        let server = try Server(served)
        defer { server.stop() }
        // One connection first, so that what every server allocates once is not counted.
        let first = try Self.connect(server)
        usleep(200_000)
        let before = server.residentBytes
        var sockets: [BenchSocket] = [first]
        for _ in 0..<connections { sockets.append(try Self.connect(server)) }
        usleep(500_000)
        let after = server.residentBytes
        return Double(after - before) / Double(connections)
    }
}
