import EmberCore
import EmberTestSupport
import Foundation
import Testing

/// Issue 18's cases that need the real `ember` process: a second process on one database
/// directory, a client store damaged between runs, an empty server store.
@Suite("Store trust, as processes")
struct StoreTrustTests {
    static var executable: URL { EmberProcess.executable }

    /// Starts `ember` with `arguments` (no rc file, quiet) and standard input from `input`.
    private func start(_ arguments: [String], input: ChildProcess.Input = .none) throws -> ChildProcess {
        try EmberProcess.start(["--no-rc", "-q"] + arguments, input: input)
    }

    /// Runs `ember` to the end; returns its status, stdout and stderr.
    private func ember(_ arguments: String...) throws -> ChildProcess.Result {
        EmberProcess.run(["--no-rc", "-q"] + arguments)
    }

    @Test("a second process on a database directory is refused at start, naming the holder's pid (exit 1)")
    func secondProcessIsRefused() throws {
        let directory = try TemporaryDirectory.make("ember-trust").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try ember("--db", directory, "-c", "set /count 1").status == 0)
        // The first process reads commands from a pipe that stays open: it holds the directory.
        let started = try start(["--db", directory], input: .pipe)
        let first = started.process
        let input = try #require(started.input)
        defer {
            try? input.close()
            first.waitUntilExit()
        }
        let lockFile = directory + "/ember.lock"
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: lockFile, encoding: .utf8), text.contains("\(first.processIdentifier)") { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let second = try ember("--db", directory, "-c", "increment /count 1")
        #expect(second.status == 1)
        #expect(second.error.contains("in use by another ember process (pid \(first.processIdentifier))"), "\(second.error)")
        #expect(second.error.contains("--memory"))
        #expect(second.output == "")
        try input.write(contentsOf: Data("increment /count 1\n".utf8))
        try input.close()
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)
        // Once the first is gone, the directory opens, with the first's write and nothing of the second's.
        let after = try ember("--db", directory, "-c", "get /count")
        #expect(after.status == 0)
        #expect(after.output == "2\n")
    }

    @Test("while ember has a database directory open, another program opening server.sqlite (Python's sqlite3) is told it is locked; once ember exits, it reads what ember wrote")
    func anotherProgramWaitsForTheStore() throws {
        let directory = try TemporaryDirectory.make("ember-trust").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let started = try start(["--db", directory], input: .pipe)
        let input = try #require(started.input)
        defer {
            try? input.close()
            started.process.waitUntilExit()
        }
        try input.write(contentsOf: Data("set /held 1\nget /held\n".utf8))
        #expect(started.waitForOutput(containing: "1", timeout: 30), "ember answered: \(started.output) \(started.errors)")
        let read = ["python3", "-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], timeout=0)
            print(db.execute("SELECT value FROM leaves WHERE path = 'held'").fetchone()[0])
            """, directory + "/server.sqlite"]
        let refused = ChildProcess.run(read, timeout: 60)
        #expect(refused.status != 0)
        #expect(refused.error.contains("database is locked"), "\(refused.error)")
        try input.close()
        started.process.waitUntilExit()
        #expect(started.process.terminationStatus == 0)
        let after = ChildProcess.run(read, timeout: 60)
        #expect(after.status == 0, "\(after.error)")
        #expect(after.output == "1\n")
    }

    @Test("a client store truncated to 1,000 bytes stops a command-line run with exit 1, set aside and reported; status lists it")
    func truncatedClientStore() throws {
        let directory = try TemporaryDirectory.make("ember-trust").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let queued = try ember("--db", directory, "--offline", "-c", "set /a 1", "-c", "set /b 2")
        #expect(queued.status == 0)
        #expect(queued.output.contains("queued (offline)"))
        let file = directory + "/clients/main.sqlite"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try handle.truncate(atOffset: 1000)
        try handle.close()
        let run = try ember("--db", directory, "--offline", "-c", "set /c 3")
        #expect(run.status == 1)
        #expect(run.output == "", "nothing ran")
        #expect(run.error.contains("the store of client main at \(file) cannot be read"), "\(run.error)")
        #expect(run.error.contains("moved to \(file).unreadable-"))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory + "/clients")
        #expect(names.contains { $0.hasPrefix("main.sqlite.unreadable-") })
        let status = try ember("--db", directory, "--json", "-c", "status")
        #expect(status.status == 0)
        #expect(status.output.contains(#""setAside":[""#), "\(status.output)")
        #expect(status.output.contains("main.sqlite.unreadable-"))
        // The new store keeps what is queued now.
        #expect(try ember("--db", directory, "--offline", "-c", "set /c 3").status == 0)
        let pending = try ember("--db", directory, "--offline", "--json", "-c", "status")
        #expect(pending.output.contains(#""pendingWrites":1"#), "\(pending.output)")
    }

    @Test("an empty (0-byte) server.sqlite opens with a warning that says so")
    func emptyServerStoreIsReported() throws {
        let directory = try TemporaryDirectory.make("ember-trust").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(FileManager.default.createFile(atPath: directory + "/server.sqlite", contents: Data()))
        let run = try ember("--db", directory, "-c", "get /")
        #expect(run.status == 0)
        #expect(run.output == "null\n")
        #expect(run.error.contains("server.sqlite is an empty file (0 bytes): the database starts with no data"), "\(run.error)")
    }

    @Test("a read-only database directory opens for reading: get works, writes are refused with the reason")
    func readOnlyDirectory() throws {
        let directory = try TemporaryDirectory.make("ember-trust").path
        defer {
            chmod(directory, 0o755)
            try? FileManager.default.removeItem(atPath: directory)
        }
        #expect(try ember("--db", directory, "-c", "set /a {b: 1}").status == 0)
        #expect(chmod(directory, 0o555) == 0)
        // Root writes anywhere: run as nobody then, as a user whose directory it is not.
        var arguments = ["--no-rc", "-q", "--db", directory, "-c", "get /a/b", "-c", "set /a/b 2"]
        let executable: String
        if getuid() == 0 {
            executable = "/usr/bin/setpriv"
            arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", Self.executable.path] + arguments
        } else {
            executable = Self.executable.path
        }
        let run = ChildProcess.run([executable] + arguments)
        let (out, err) = (run.output, run.error)
        #expect(run.status == 1)
        #expect(out == "1\n", "get works: \(err)")
        #expect(err.contains("is read-only (its directory cannot be written): reads work, writes are refused"))
        #expect(err.contains("error: the database at \(directory)/server.sqlite is read-only"), "\(err)")
        #expect(chmod(directory, 0o755) == 0)
        #expect(try ember("--db", directory, "-c", "get /a/b").output == "1\n", "nothing was written")
    }

    @Test("an object's priority is exported whole after its children were read in the same run, and is gone after it was emptied and written again in one script")
    func prioritiesReadBackThroughTheBinary() throws {
        let directory = try TemporaryDirectory.make("ember-trust").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try ember("--db", directory, "-c", #"set / {"c":{"c":{".priority":2,"b":{"c":1}},"d":{"x":1}},"e":{".priority":3,"f":{"x":1}}}"#).status == 0)
        // `/c/c/b` and `/c/d` read first: `/c` is then read over them (it lost `/c/c`'s priority).
        let read = try ember("--db", directory, "-c", "get /c/c/b", "-c", "get /c/d", "-c", "export /c")
        #expect(read.status == 0, "\(read.error)")
        // The export is the last of the three answers (each a JSON text from a line's start).
        let exported = read.output.range(of: "\n{\n  \"c\": {", options: .backwards).map { String(read.output[$0.lowerBound...]) }
        #expect(try exported.map { try Node(jsonText: $0) } == Node(jsonText: #"{"c":{".priority":2,"b":{"c":1}},"d":{"x":1}}"#), "\(read.output)")
        // `/e/f` deleted, then `/e/g` written, without waiting: one tick; `/e` is a new object,
        // without the old one's priority (it came back after the restart).
        let script = try ember("--db", directory, "-e", #"db:ref("e/f"):remove() db:ref("e/g"):set(1) ember.flush()"#)
        #expect(script.status == 0, "\(script.error)")
        let after = try ember("--db", directory, "-c", "export /e")
        #expect(after.status == 0, "\(after.error)")
        #expect(try Node(jsonText: after.output) == Node(jsonText: #"{"g":1}"#), "\(after.output)")
    }

    /// Sets from a script with no listener wait out of the client's layer of pending writes
    /// (`WriteTree.applyDeferred`); a read in the middle must see them, and all must be kept.
    @Test("a script's sets with no listener are seen by its own get and read back by a new process; a key that is not UTF-8 fails the script")
    func scriptSetsWithoutAListener() throws {
        let directory = try TemporaryDirectory.make("ember-trust").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = try ember(
            "--db", directory, "-e",
            #"local r = db:ref("s") for i = 1, 2000 do r:child("k" .. i):set(i) end r:child("k5"):set("five") print("got " .. r:child("k5"):get():val()) ember.flush()"#)
        #expect(script.status == 0, "\(script.error)")
        #expect(script.output.contains("got five"), "\(script.output)")
        let after = try ember("--db", directory, "-c", "get /s/k5", "-c", "get /s/k2000")
        #expect(after.status == 0, "\(after.error)")
        #expect(after.output.contains("five") && after.output.contains("2000"), "\(after.output)")
        let bad = try ember("--db", directory, "-e", #"db:ref("s"):child("caf\xE9"):set(1)"#)
        #expect(bad.status != 0)
        #expect(bad.error.contains("not UTF-8"), "\(bad.error)")
    }
}
