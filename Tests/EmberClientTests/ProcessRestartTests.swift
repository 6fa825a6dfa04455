import EmberCore
import EmberStorage
import EmberTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `ember-harness`, built with the tests, next to the test executable: each run is one phase of
/// a test, so a restart is a real restart of the process, and a crash a real SIGKILL.
enum Harness {
    static let executable = ChildProcess.built("ember-harness")

    /// Runs a phase to its end; returns its status and output lines.
    static func run(_ arguments: String...) throws -> (status: Int32, lines: [String], error: String) {
        let result = try start(arguments).finish()
        return (result.status, lines(result.output), result.error)
    }

    /// Runs a phase until it prints a line starting with `ready`, lets it run `milliseconds`
    /// more, then kills it with SIGKILL; returns the lines it printed.
    static func runAndKill(whenPrinted ready: String, after milliseconds: Int, _ arguments: String...) throws -> [String] {
        let process = try start(arguments)
        // Until the line, or the phase ends on its own.
        process.waitForOutput(timeout: 300) { lines($0).contains { $0.hasPrefix(ready) } }
        usleep(UInt32(milliseconds * 1000))
        process.send(SIGKILL)
        return lines(process.finish().output)
    }

    private static func start(_ arguments: [String]) throws -> ChildProcess {
        try #require(FileManager.default.isExecutableFile(atPath: executable.path), "ember-harness is not built at \(executable.path)")
        return try ChildProcess.start([executable.path] + arguments)
    }

    private static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }
}

@Suite("Restarts of the process")
struct ProcessRestartTests {
    @Test("the seeds' offline query scenario, across a real restart of the process")
    func dinosaurs() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let online = try Harness.run("dinosaurs-online", directory)
        #expect(online.status == 0, "\(online.error)")
        #expect(online.lines.last == #"last4 value: {"bruhathkayosaurus":55,"linhenykus":80,"pterodactyl":93,"triceratops":22}"#)
        let offline = try Harness.run("dinosaurs-offline", directory)
        #expect(offline.status == 0, "\(offline.error)")
        #expect(offline.lines == [
            // limitToLast(2): the two highest from the cache, and no value event.
            "last2 child_added linhenykus: 80", "last2 child_added pterodactyl after linhenykus: 93",
            "--",
            // limitToLast(6): the four cached ones at once.
            "last6 child_added triceratops: 22", "last6 child_added bruhathkayosaurus after triceratops: 55",
            "last6 child_added linhenykus after bruhathkayosaurus: 80", "last6 child_added pterodactyl after linhenykus: 93",
            "-- online",
            #"last2 value: {"linhenykus":80,"pterodactyl":93}"#,
            // Back online: the two missing child_added events, then value.
            "last6 child_added stegosaurus: 5", "last6 child_added lambeosaurus after stegosaurus: 21",
            #"last6 value: {"bruhathkayosaurus":55,"lambeosaurus":21,"linhenykus":80,"pterodactyl":93,"stegosaurus":5,"triceratops":22}"#,
        ])
    }

    @Test("a write queued offline survives a restart of the process and reaches the server and another client")
    func queuedWrite() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try Harness.run("queue-offline", directory)
        #expect(first.status == 0, "\(first.error)")
        #expect(first.lines == ["pending 2"])
        let second = try Harness.run("queue-deliver", directory)
        #expect(second.status == 0, "\(second.error)")
        #expect(second.lines == [
            "pending 2", #"alice sees "hello""#, "bob value: null", #"bob child_added m1: "hello""#, #"bob value: {"m1":"hello"}"#,
            "bob child_added count: 1", #"bob value: {"count":1,"m1":"hello"}"#, "pending 0", #"server {"count":1,"m1":"hello"}"#,
        ])
    }
}

/// A writer process killed with SIGKILL at a random moment of a stream of multi-path updates
/// (`{log/iN: true, pairs/iN: {a: N, b: N}, total: +1}`, several unanswered at a time), then
/// restarted to send its queue: 8 seeded trials in each durability mode.
@Suite("Crashes")
struct CrashTests {
    static let trials: [(Durability, Int)] = Durability.allCases.flatMap { mode in (1...8).map { (mode, $0) } }

    @Test(arguments: trials)
    func killedWriter(durability: Durability, seed: Int) throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var random = SeededRandom(seed: UInt64(seed) &* 7919 &+ UInt64(durability.rawValue.count))
        let delay = Int(random.next() % 400)
        let written = try Harness.runAndKill(
            whenPrinted: "queued", after: delay, "crash-writer", directory, durability.rawValue, String(seed))
        #expect(!written.contains { $0.hasPrefix("failed") }, "no write was refused: \(written.filter { $0.hasPrefix("failed") })")
        let acked = Set(written.compactMap { number(in: $0, after: "acked ") })
        let queued = written.compactMap { number(in: $0, after: "queued ") }.max() ?? -1

        let recovered = try Harness.run("crash-recover", directory, durability.rawValue)
        try #require(recovered.status == 0, "the database opens after the crash: \(recovered.error)")
        let treeLine = try #require(recovered.lines.first { $0.hasPrefix("tree ") })
        let tree = try Node(jsonText: String(treeLine.dropFirst("tree ".count)))
        let logged = Set(tree.child("log").children.compactMap { Int($0.key.name.dropFirst()) })
        let paired = Set(tree.child("pairs").children.compactMap { Int($0.key.name.dropFirst()) })

        // No multi-path update is partial.
        #expect(logged == paired, "every update landed whole: log and pairs differ by \(logged.symmetricDifference(paired).sorted())")
        for n in paired {
            let pair = tree.child("pairs").child(ChildKey(unchecked: "i\(n)"))
            #expect(pair == Node(children: [(ChildKey(unchecked: "a"), Node(.int(Int64(n)))), (ChildKey(unchecked: "b"), Node(.int(Int64(n))))]))
        }
        // Each applied exactly once: the increments add up to the updates logged.
        #expect(tree.child("total") == (logged.isEmpty ? .empty : Node(.int(Int64(logged.count)))), "exactly once")
        // No acknowledged write is lost.
        #expect(acked.subtracting(logged).isEmpty, "acknowledged but lost: \(acked.subtracting(logged).sorted())")
        // Every write that reached the client's queue was sent after the restart.
        let lostQueued = (0...max(queued, 0)).filter { queued >= 0 && !logged.contains($0) }
        #expect(lostQueued.isEmpty, "queued but never sent: \(lostQueued)")
        #expect(queued >= 0 && !logged.isEmpty, "the writer was killed while writing (after \(delay) ms)")
        let restored = recovered.lines.first { $0.hasPrefix("restored ") }
        #expect(restored != nil)
    }

    private func number(in line: String, after prefix: String) -> Int? {
        line.hasPrefix(prefix) ? Int(line.dropFirst(prefix.count)) : nil
    }
}
