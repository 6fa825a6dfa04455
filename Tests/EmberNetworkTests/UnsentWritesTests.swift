import EmberTestSupport
import Foundation
import Testing

/// Issue 37, items 3 and 4, as users run Ember: a write reported as queued must not vanish at
/// exit, and a write must not hang without a word when the server is gone. Real `ember serve`
/// and `ember` processes.
@Suite(.serialized)
struct UnsentWritesTests {
    /// A home of its own for each test: the clients' caches live under it.
    private let home = FileManager.default.temporaryDirectory.appendingPathComponent("ember-unsent-\(UUID().uuidString)")

    private func ember(_ arguments: [String], timeout: TimeInterval = 60) -> (status: Int32, output: String, seconds: Double) {
        let started = Date()
        let run = ChildProcess.run(
            [ServeProcess.executable.path, "--no-rc"] + arguments, environment: ["HOME": home.path, "NO_COLOR": "1"], mergingErrors: true, timeout: timeout)
        return (run.status, run.output, Date().timeIntervalSince(started))
    }

    /// A port nothing listens on: bound, then closed.
    private func closedPort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test("a script's write to a server that is not there fails within --ack-timeout, naming where it is kept")
    func writeToNoServer() throws {
        let url = "ws://127.0.0.1:\(try closedPort())/?ns=x"
        let onDisk = ember(["--connect", url, "--ack-timeout", "1", "-c", "set /a 1"])
        #expect(onDisk.status == 1, "\(onDisk.output)")
        #expect(onDisk.seconds < 20, "took \(onDisk.seconds) s")
        #expect(onDisk.output.contains("cannot reach \(url): connection refused"), "\(onDisk.output)")
        #expect(onDisk.output.contains("the write was not acknowledged within 1 s (--ack-timeout): client main is disconnected"), "\(onDisk.output)")
        #expect(onDisk.output.contains("it stays queued in \(home.path)/.local/share/ember/remote/"), "\(onDisk.output)")
        #expect(!onDisk.output.contains("SingleConnectionFailure") && !onDisk.output.contains("errno"), "\(onDisk.output)")

        // In memory by choice: a Lua write that nobody waited for is named as lost at exit.
        let inMemory = ember(["--connect", url, "--memory", "--ack-timeout", "1", "-e", "db:ref('y'):set(1)"])
        #expect(inMemory.status == 1, "\(inMemory.output)")
        #expect(inMemory.output.contains("1 write of client main was never sent to \(url) and is lost: the queue was in memory only (--memory)"),
                "\(inMemory.output)")
    }

    @Test("a write queued offline by a second terminal is kept on disk and sent by the next run; a queue in memory says so")
    func secondTerminalKeepsItsQueue() throws {
        let directory = home.appendingPathComponent("db").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let server = try ServeProcess(["--db", directory])
        defer { server.stop() }
        let queued = ember(["--db", directory, "-c", "offline", "-c", "set /lost 1"])
        #expect(queued.status == 0, "\(queued.output)")
        #expect(queued.output.contains("queued (offline): sent when the client reconnects"), "\(queued.output)")
        #expect(queued.output.contains("its clients' queues are kept in \(home.path)/.local/share/ember/remote/"), "\(queued.output)")
        #expect(queued.output.contains("1 write of client main is queued (offline)"), "\(queued.output)")
        #expect(ChildProcess.run(["curl", "-s", "\(server.url)/lost.json"], mergingErrors: true).output == "null")
        // The next second terminal sends it as it connects.
        let next = ember(["--db", directory, "-c", "get /lost"])
        #expect(next.status == 0, "\(next.output)")
        #expect(next.output.contains("1\n"), "\(next.output)")
        #expect(ChildProcess.run(["curl", "-s", "\(server.url)/lost.json"], mergingErrors: true).output == "1")
        // Through --connect with --memory the message says the queue is in memory only, and
        // leaving with it unsent fails the script, naming what was lost.
        let url = "ws://127.0.0.1:\(server.port)/?ns=default"
        let memory = ember(["--connect", url, "--memory", "-c", "offline", "-c", "set /gone 2"])
        #expect(memory.status == 1, "\(memory.output)")
        #expect(memory.output.contains("queued (offline): sent when the client reconnects; kept in memory only: lost if ember exits before then"),
                "\(memory.output)")
        #expect(memory.output.contains("1 write of client main was never sent to \(url) and is lost"), "\(memory.output)")
        // Stopped, the directory opens embedded and still holds the write.
        server.stop()
        let embedded = ember(["--db", directory, "-c", "get /lost"])
        #expect(embedded.output.contains("1\n"), "\(embedded.output)")
    }
}
