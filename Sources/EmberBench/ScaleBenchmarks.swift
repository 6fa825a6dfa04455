import EmberClient
import EmberCore
import EmberInstance
import EmberStorage
import EmberTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Issue 38's workloads: the data users have. A seeded Firebase-style export (users with a
/// nested profile, and messages), imported, opened and read by the real `ember`, each run a
/// process of its own measured from spawn to exit with its peak resident memory; beside it
/// SQLite holding the same records as JSON rows, and Python's `json.load` on the file.
struct ScaleBenchmarks {
    /// One run of a program: its wall time, its peak resident memory, what it printed.
    struct Run {
        let elapsed: Duration
        let peakBytes: Int
        let status: Int32
        let output: String
        let error: String
    }

    /// The export's sizes: `users` users with 9 leaves each, `messages` messages with 3.
    struct ExportSize {
        let users: Int
        let messages: Int

        /// 100,000 users and 200,000 messages: about 44 MB, 1.5 million leaves.
        static let standard = ExportSize(users: 100_000, messages: 200_000)

        /// `factor` times as many of each.
        func times(_ factor: Int) -> ExportSize { ExportSize(users: users * factor, messages: messages * factor) }
    }

    /// Writes the export to `file`, seeded: the same bytes every time.
    /// - Returns: its size in bytes.
    @discardableResult
    static func writeExport(_ size: ExportSize, to file: String) -> Int {
        var random = SeededRandom(seed: 38)
        let cities = ["Lyon", "Paris", "Berlin", "Oslo", "Lima", "Austin", "Kyoto", "Perth", "Cairo", "Quito"]
        let words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau".split(separator: " ")
        let languages = ["en", "fr", "de", "ja"]
        func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
        func number(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(random.next() % UInt64(range.count)) }
        func sentence(_ count: Int) -> String { (0..<count).map { _ in String(pick(words)) }.joined(separator: " ") }
        guard let stream = fopen(file, "w") else { fatalError("cannot write \(file)") }
        defer { fclose(stream) }
        var written = 0
        var buffer = ""
        func emit(_ text: String) {
            buffer += text
            if buffer.utf8.count > 1 << 16 { flush() }
        }
        func flush() {
            written += buffer.utf8.count
            fputs(buffer, stream)
            buffer = ""
        }
        emit(#"{"users":{"#)
        for index in 0..<size.users {
            let id = "u" + String(format: "%06d", index)
            emit(
                (index > 0 ? "," : "")
                    + #""\#(id)":{"name":"User \#(index)","email":"\#(id)@example.com","age":\#(number(18...90)),"score":\#(number(0...100_000)),"#
                    + #""profile":{"bio":"\#(sentence(6))","city":"\#(pick(cities))","joined":\#(1_600_000_000_000 + number(0...100_000_000_000)),"#
                    + #""lang":"\#(pick(languages))","verified":\#(random.next() % 2 == 0)}}"#)
        }
        emit(#"},"messages":{"#)
        for index in 0..<size.messages {
            let from = "u" + String(format: "%06d", number(0...(size.users - 1)))
            emit(
                (index > 0 ? "," : "") + #""m\#(String(format: "%07d", index))":{"from":"\#(from)","text":"\#(sentence(10))","ts":\#(1_600_000_000_000 + index * 1000)}"#)
        }
        emit("}}")
        flush()
        return written
    }

    /// GNU time, which reports the peak resident memory of a child it forked itself.
    static let timeCommand = "/usr/bin/time"

    /// Runs `arguments` (standard input from /dev/null, output captured to files) and measures
    /// it from spawn to exit, with its peak resident memory.
    ///
    /// The peak comes from GNU time (`/usr/bin/time -f %M`) run in between, not from this
    /// process's `wait4`: Linux starts a child's `ru_maxrss` at its parent's peak when the
    /// child is spawned (`posix_spawn` shares the parent's memory until `exec`, and `exec`
    /// keeps the larger of the two), so after a workload that grew `ember-bench` to 445 MB every
    /// child measured 445 MB, `sqlite3` and the 41 MB `ember` alike. `time` is a small process:
    /// what it reports starts from its own few hundred KB. It adds about 40 µs to a run. Without
    /// it, `wait4`'s figure is used, a ceiling, not a measure: ``peakMemoryProblem()`` says so.
    static func spawn(_ arguments: [String], environment: [String: String] = [:]) -> Run {
        let useTime = FileManager.default.isExecutableFile(atPath: timeCommand)
        let scratch = TemporaryDirectory.make("scale-run")
        defer { TemporaryDirectory.remove(scratch) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, scratch + "/out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, scratch + "/err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let command = useTime ? [timeCommand, "-f", "%M", "-o", scratch + "/peak"] + arguments : arguments
        let argv = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var variables = ProcessInfo.processInfo.environment
        for (name, value) in environment { variables[name] = value }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        let clock = ContinuousClock()
        let start = clock.now
        var pid: pid_t = 0
        guard posix_spawnp(&pid, command[0], &actions, nil, argv, envp) == 0 else {
            return Run(elapsed: .zero, peakBytes: 0, status: -1, output: "", error: "cannot start \(arguments[0])")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let elapsed = clock.now - start
        let output = (try? String(contentsOfFile: scratch + "/out", encoding: .utf8)) ?? ""
        let error = (try? String(contentsOfFile: scratch + "/err", encoding: .utf8)) ?? ""
        var peakKilobytes = usage.ru_maxrss
        if useTime {
            // GNU time writes "Command exited with non-zero status N" first when it failed.
            let report = (try? String(contentsOfFile: scratch + "/peak", encoding: .utf8)) ?? ""
            peakKilobytes = report.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        }
        return Run(elapsed: elapsed, peakBytes: peakKilobytes * 1024, status: status, output: output, error: error)
    }

    /// Why ``spawn(_:environment:)``'s peak memory cannot be trusted here, or `nil`: GNU time
    /// is missing, or a process that does nothing (`true`) is not reported as one of a few
    /// MB while this process holds far more. Asked once before a group's memory rows.
    static func peakMemoryProblem() -> String? {
        guard FileManager.default.isExecutableFile(atPath: timeCommand) else {
            return "\(timeCommand) is missing (Debian package `time`): a spawned process's own peak cannot be told from ember-bench's"
        }
        // Hold 64 MB more than a process that does nothing, so that a figure inherited from
        // this process shows.
        let ballast = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 20, alignment: 4096)
        defer { ballast.deallocate() }
        for offset in stride(from: 0, to: ballast.count, by: 4096) { ballast[offset] = 1 }
        let run = spawn(["true"])
        guard run.status == 0, run.peakBytes > 0, run.peakBytes < 32 << 20 else {
            return "`true` under \(timeCommand) was reported at \(run.peakBytes) bytes (status \(run.status)), not its own few MB"
        }
        return nil
    }

    /// The bytes of every file below `directory`.
    static func diskBytes(_ directory: String) -> Int {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return 0 }
        var total = 0
        while let name = walker.nextObject() as? String {
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            if attributes?[.type] as? FileAttributeType == .typeRegular { total += (attributes?[.size] as? Int) ?? 0 }
        }
        return total
    }

    /// The bytes of a file and its SQLite companions (`-wal`, `-shm`).
    static func fileBytes(_ file: String) -> Int {
        ["", "-wal", "-shm"].reduce(0) { total, suffix in
            total + ((try? FileManager.default.attributesOfItem(atPath: file + suffix))?[.size] as? Int ?? 0)
        }
    }

    /// The rules the export is imported with: `.indexOn` the users' score.
    static let rules = #"{"rules":{".read":true,".write":true,"users":{".indexOn":["score"]}}}"#

    /// The SQLite peer's import: the same records, one JSON row each, in two tables keyed by
    /// id, with an index on the users' score; read from the file by SQLite's own JSON functions.
    static func sqliteImportScript(export: String) -> String {
        """
        PRAGMA journal_mode=WAL;
        CREATE TABLE users (id TEXT PRIMARY KEY, doc TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE messages (id TEXT PRIMARY KEY, doc TEXT NOT NULL) WITHOUT ROWID;
        BEGIN;
        INSERT INTO users SELECT key, value FROM json_each(readfile('\(export)'), '$.users');
        INSERT INTO messages SELECT key, value FROM json_each(readfile('\(export)'), '$.messages');
        CREATE INDEX users_score ON users (json_extract(doc, '$.score'));
        COMMIT;
        """
    }
}

extension ScaleBenchmarks {
    /// Opens the database directory, listens to `/` with a client until its first value (the
    /// whole tree, loaded by the server and held by the listen), and returns the process's
    /// resident memory then, in bytes.
    static func residentWithTheWholeTree(directory: String) -> Int {
        let settings = try! PersistenceSettings(durability: .normal)
        let ember = try! Ember(persistence: .directory(directory, settings), clock: SystemClock(), random: SeededRandom(seed: 1))
        let client = try! ember.client(named: "scale")
        var children = -1
        try! client.reference("users").observe(.value) { snapshot, _ in children = snapshot.childrenCount }
        var whole = false
        try! client.reference("").observe(.value) { _, _ in whole = true }
        while !whole { try! ember.flush() }
        precondition(children > 0, "the users arrived")
        let bytes = ResidentMemory.bytes()
        withExtendedLifetime(ember) {}
        return bytes
    }
}
