import EmberCore
import EmberTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The `ember` executable, run as a user would: parsing, hand-off to the shell, exit statuses.
///
/// `swift test` builds every product, so the binary sits next to the test executable.
@Suite struct EmberCommandLineTests {
    /// The built `ember`, next to the test executable.
    static var executable: URL { EmberProcess.executable }

    /// Runs `ember` with `arguments`; returns its status, stdout and stderr.
    private func ember(_ arguments: String...) throws -> ChildProcess.Result {
        EmberProcess.run(arguments)
    }

    private func ember(_ arguments: [String]) throws -> ChildProcess.Result {
        EmberProcess.run(arguments)
    }

    /// Starts `ember` with `arguments`.
    private func start(_ arguments: [String]) throws -> ChildProcess {
        try EmberProcess.start(arguments)
    }

    @Test
    func runsCommandsAndExitsWithTheFirstFailure() throws {
        let result = try ember("-q", "--memory", "-c", "set /a {b: 1}", "-c", "get /a")
        #expect(result.status == 0)
        #expect(result.error == "")
        #expect(result.output == "ok\n{\n  \"b\": 1\n}\n")

        let failed = try ember("--memory", "-c", "set /a 1", "-c", "get /a limitToFirst 0", "-c", "get /a")
        #expect(failed.status == 1)
        #expect(failed.output == "ok\n")
        #expect(failed.error.contains("get /a limitToFirst 0\n"))

        let json = try ember("--memory", "--json", "-c", "push /log 'x'", "-c", "get /nothing", "-c", "set /bad {'a.b': 1}")
        #expect(json.status == 1)
        let lines = json.output.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix(#"{"ok":true,"key":""#) == true)
        #expect(lines.last == "null")
        #expect(json.error.hasPrefix(#"{"error":{"code":"#))
    }

    /// A new temporary directory holding `rules.json`: users read and write only their own notes.
    /// - Returns: the directory (the caller removes it) and the rules file.
    private static func notesRules() throws -> (directory: String, file: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ember-cli-rules-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/rules.json"
        try #"""
            {
              // only alice writes her notes
              "rules": {"notes": {"$uid": {".read": "$uid === auth.uid", ".write": "$uid === auth.uid"}}}
            }
            """#.write(toFile: file, atomically: true, encoding: .utf8)
        return (directory, file)
    }

    @Test("--rules puts a rules file in force and keeps it with the database; a bad file is refused naming file:line:column")
    func rulesOption() throws {
        let (directory, rules) = try Self.notesRules()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bad = directory + "/bad.json"
        try #"{"rules": {"notes": {".write": "auth.uid =="}}}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        let db = directory + "/db"

        let refused = try ember("-q", "--db", db, "--rules", bad, "-c", "status")
        #expect(refused.status == 1)
        #expect(refused.output == "")
        #expect(refused.error.contains("--rules: \(bad):1:44: expected a value"), "\(refused.error)")
        #expect(refused.error.contains("(at rules/notes/.write)"), "\(refused.error)")

        let first = try ember(
            "-q", "--db", db, "--rules", rules, "-c", "auth {uid: 'alice'}", "-c", "set /notes/alice/n1 'hi'", "-c", "set /notes/bob/n1 'hi'")
        #expect(first.status == 1)
        #expect(first.output.hasSuffix("ok\n"), "\(first.output)")
        #expect(first.error.contains("permission denied at /notes/bob/n1"), "\(first.error)")

        // A second run without --rules: the rules and alice's token were kept.
        let second = try ember("-q", "--db", db, "-c", "rules show", "-c", "auth", "-c", "get /notes/alice")
        #expect(second.status == 0, "\(second.error)")
        #expect(second.output.contains("only alice writes her notes"))
        #expect(second.output.contains("main: signed in as alice"))
        #expect(second.output.hasSuffix("{\n  \"n1\": \"hi\"\n}\n"), "\(second.output)")
    }

    @Test("a write held because the token expired goes out once the client has a new token (real clock, real binary)")
    func heldWriteGoesOutWithANewToken() throws {
        let (directory, rules) = try Self.notesRules()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Nothing is sent between the expiry and the new token: the server revokes the old token
        // only when the new one arrives, and that revocation must not hold the writes again.
        let result = try ember(
            "-q", "--memory", "--rules", rules, "-c", "auth {uid: 'alice'} expires 1000", "-c", "sleep 2100",
            "-c", "set /notes/alice/n1 'held'", "-c", "auth {uid: 'alice'}", "-c", "set /notes/alice/n2 'after'",
            "-c", "get /notes/alice", "-c", "auth")
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("held (alice's token expired): sent once the client has a new token"), "\(result.output)")
        #expect(result.output.contains("the held writes went out"), "\(result.output)")
        #expect(result.output.contains("went out\nok\n{\n  \"n1\": \"held\",\n  \"n2\": \"after\"\n}\n"), "\(result.output)")
        #expect(result.output.hasSuffix("main: signed in as alice {\"uid\":\"alice\"}, token expires in 1 h\n"), "\(result.output)")
    }

    @Test("get offline with nothing cached says it waits for the connection, then fails with offline after its timeout (real clock)")
    func getOfflineWaitsUpToItsTimeout() throws {
        let started = Date()
        let result = try ember("-q", "--memory", "-c", "offline", "-c", "get /x timeout 300")
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 1)
        #expect(result.output == "main is offline: writes queue until online\n")
        #expect(result.error.hasPrefix("waiting for the connection (up to 300 ms; Ctrl-C stops)…\n"), "\(result.error)")
        #expect(result.error.contains("client main is offline and has no cached data at /x"), "\(result.error)")
        #expect(elapsed >= 0.3 && elapsed < 2.9, "waited \(elapsed) s, not the default 3 s")

        let json = try ember("-q", "--memory", "--json", "-c", "offline", "-c", "get /x timeout 100")
        #expect(json.status == 1)
        #expect(json.output == "{\"ok\":true}\n", "stdout holds results only")
        #expect(json.error.hasPrefix(#"{"waiting":"connection","timeout_ms":100}"# + "\n"), "\(json.error)")
        #expect(json.error.contains(#""code":"offline""#), "\(json.error)")
    }

    @Test("Ctrl-C stops a get waiting for the connection")
    func interruptedGet() throws {
        let started = Date()
        let getting = try start(["-q", "--memory", "-c", "offline", "-c", "get /x timeout 60000"])
        // Wait for the announcement (the handler is installed by then), then interrupt.
        getting.waitForErrors(containing: "Ctrl-C stops", timeout: 20)
        let announced = getting.errors
        #expect(announced.contains("waiting for the connection (up to 60 s; Ctrl-C stops)…"), "\(announced)")
        getting.send(SIGINT)
        let ended = getting.finish()
        let rest = String(ended.error.dropFirst(announced.count))
        #expect(ended.status == 1)
        #expect(rest.contains("interrupted: stopped waiting for the value"), "\(rest)")
        #expect(Date().timeIntervalSince(started) < 30, "stopped long before the 60 s timeout")
    }

    @Test
    func usageErrorsExitWithTwo() throws {
        let conflicting = try ember("--db", "/tmp/x", "--memory")
        #expect(conflicting.status == 2)
        #expect(conflicting.output == "")
        #expect(conflicting.error.hasPrefix("Error: --db and --memory cannot be used together\nUsage: ember"))

        let unknown = try ember("--bogus")
        #expect(unknown.status == 2)
        #expect(unknown.error.hasPrefix("Error: unknown option '--bogus'"))

        let badDurability = try ember("--durability", "fast")
        #expect(badDurability.status == 2)
        #expect(badDurability.error.hasPrefix(#"Error: invalid durability "fast": expected off, normal or full"#))

        let missingValue = try ember("-c")
        #expect(missingValue.status == 2)
    }

    @Test
    func versionAndHelpExitWithZero() throws {
        let version = try ember("--version")
        #expect(version.status == 0)
        #expect(version.output == "0.1.0\n")

        let help = try ember("--help")
        #expect(help.status == 0)
        #expect(help.output.contains("USAGE: ember [<options>] [<SCRIPT.lua ARGS> ...]"))
        #expect(help.output.contains("--durability <M>"))

        // after the script, flags belong to the script (which does not exist here)
        let scripted = try ember("--memory", "missing.lua", "--help")
        #expect(scripted.status == 1)
        #expect(scripted.error.contains("cannot read missing.lua"))
    }

    /// Issue 37, item 19: `ember help` read a script named help (and made the default
    /// database); `--help` and the completion scripts knew nothing of `serve`; the banner's
    /// `--connect` URL broke in zsh (`?`) unquoted.
    @Test func theFrontDoorKnowsServeAndHelp() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("ember-help-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let help = EmberProcess.run(["help"], environment: ["XDG_DATA_HOME": data])
        #expect(help.status == 0, "\(help.error)")
        #expect(help.output.contains("help COMMAND shows one command"), "\(help.output)")
        #expect(help.output.contains("help lua"))
        #expect(!FileManager.default.fileExists(atPath: data + "/ember"), "no database was made")
        let topic = EmberProcess.run(["help", "lua"], environment: ["XDG_DATA_HOME": data])
        #expect(topic.status == 0)
        #expect(topic.output.hasPrefix("help lua: "), "\(topic.output)")
        let command = EmberProcess.run(["help", "get"], environment: ["XDG_DATA_HOME": data])
        #expect(command.output.contains("  example: "), "\(command.output)")
        let unknown = EmberProcess.run(["help", "gett"], environment: ["XDG_DATA_HOME": data])
        #expect(unknown.status == 1)
        #expect(unknown.error.contains("no command or topic 'gett' (did you mean get?)"), "\(unknown.error)")
        #expect(!FileManager.default.fileExists(atPath: data + "/ember"), "no database was made")

        let usage = try ember("--help")
        #expect(usage.output.contains("ember serve [<options>]"), "\(usage.output)")
        #expect(usage.output.contains("ember help [<topic>]"))
        #expect(usage.output.contains("SUBCOMMANDS:"))
        let serveHelp = try ember("help", "serve")
        #expect(serveHelp.status == 0)
        #expect(serveHelp.output.contains("USAGE: ember serve [<options>]"), "ember help serve, as --help says: \(serveHelp.output)")
        let serveUsage = try ember("serve", "--help")
        #expect(serveUsage.status == 0)
        #expect(serveUsage.output.contains("USAGE: ember serve [<options>]"), "\(serveUsage.output)")
        for shell in ["bash", "zsh", "fish"] {
            let script = try ember("--generate-completion-script", shell)
            #expect(script.status == 0, "\(shell): \(script.error)")
            #expect(script.output.contains("serve"), "\(shell)")
            #expect(script.output.contains("idle-timeout"), "\(shell): serve's flags")
        }

        let server = try ServeProcess(["--quiet"])
        defer { server.stop() }
        #expect(server.banner.contains("another ember: ember --connect 'ws://127.0.0.1:\(server.port)/?ns=default'\n"), "\(server.banner)")
    }

    /// Issue 18, item 9: `--lua-memory -1` said "Missing value" (the parser took -1 for an option).
    /// Issue 20: `-e A -c B -e C` ran B, A, C (each option's values were run apart).
    @Test func commandsAndChunksRunInTheOrderGiven() throws {
        let result = try ember("--memory", "-q", "-e", "print('A')", "-c", "set /b 1", "-e", "print('C')", "--command", "get /b")
        #expect(result.status == 0)
        #expect(result.output == "A\nok\nC\n1\n")
    }

    /// Issue 20: an error in a command file names the file and the line, as sqlite3 and psql
    /// do (in JSON, `file` and `line`, the file's line), and the run stops there.
    @Test func anErrorInACommandFileNamesFileAndLine() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ember-lines-\(UUID().uuidString).ember").path
        try Data("set /a 1\n\n# a comment\nset /b {bad\nget /a\nget /a\n".utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let text = try ember("--memory", "-q", "-f", file)
        #expect(text.status == 1)
        #expect(text.output == "ok\n", "nothing after the error runs")
        #expect(text.error == "\(file):5: error: expected ':' after key 'bad', found 'get'\n  get /a\n  ^^^\n")
        let json = try ember("--memory", "-q", "--json", "-f", file)
        #expect(json.status == 1)
        #expect(
            json.error
                == #"{"error":{"code":"syntax_error","message":"expected ':' after key 'bad', found 'get'","file":"\#(file)","line":5,"column":1}}"# + "\n")
    }

    /// Issue 20: `--help` printed each default twice ("default 512). (default: 512)").
    @Test func helpPrintsEachDefaultOnce() throws {
        let help = try ember("--help")
        #expect(help.status == 0)
        let text = help.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        #expect(text.components(separatedBy: "512").count == 2, "the Lua memory default once: \(text)")
        #expect(text.components(separatedBy: "1000000000").count == 2, "the instruction limit's default once")
        #expect(text.components(separatedBy: "(default: normal)").count == 2)
    }

    /// Issue 20: `\\q` leaves the shell as `quit` and `exit` do (psql's way).
    @Test func backslashQLeaves() throws {
        let result = try ember("--memory", "-q", "-c", "set /a 1", "-c", "\\q", "-c", "get /a")
        #expect(result.status == 0)
        #expect(result.output == "ok\n", "nothing runs after it")
    }

    /// Issue 20: Lua out of memory says which limit and how to change it.
    @Test func luaOutOfMemoryNamesTheLimit() throws {
        let result = try ember("--memory", "-q", "--lua-memory", "1", "-e", "local t = {} for i = 1, 1e7 do t[i] = i end")
        #expect(result.status == 1)
        #expect(result.error.hasPrefix("error: not enough memory (Lua may use at most 1 MiB here; --lua-memory MiB raises it, 0 removes the limit)"))
    }

    @Test func negativeLuaLimitsAreRefusedInWords() throws {
        let memory = try ember("--memory", "--lua-memory", "-1", "-c", "get /")
        #expect(memory.status == 2)
        #expect(memory.error.hasPrefix("Error: --lua-memory must be a positive number of MiB up to 1048576 (0 for no limit), not -1\n"))
        let instructions = try ember("--memory", "--lua-instructions", "-5", "-c", "get /")
        #expect(instructions.status == 2)
        #expect(instructions.error.hasPrefix("Error: --lua-instructions must be a positive number of instructions (0 for no limit), not -5\n"))
    }

    /// Issue 18, item 9: `--db FILE` said "NSCocoaErrorDomain error 512".
    @Test func databaseDirectoryThatIsAFileIsRefusedInWords() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ember-not-a-directory-\(UUID().uuidString)").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try ember("--db", file, "-c", "get /")
        #expect(result.status == 1)
        #expect(result.error == "error: cannot open the database at \(file): it is not a directory\n")
        let below = try ember("--db", file + "/db", "-c", "get /")
        #expect(below.status == 1)
        #expect(below.error == "error: cannot open the database at \(file)/db: \(file) is not a directory\n")
    }

    /// Imports a file of `children` children over `/data` (which holds `{"old": true}`) on a
    /// database directory, sends `signal` `milliseconds` after the start, then reads `/data` in a
    /// new process: it must be the old data or the whole import, never a part.
    private func interruptedImport(children: Int, signal: Int32, after milliseconds: Int) throws -> (imported: Bool, exited: Bool, status: Int32, error: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ember-import-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/import.json"
        let entries = (0..<children).map { #""k\#($0)":{"name":"child number \#($0)","n":\#($0)}"# }
        try Data(("{" + entries.joined(separator: ",") + "}").utf8).write(to: URL(fileURLWithPath: file))
        let database = directory + "/db"
        let setUp = try ember("--db", database, "-q", "-c", "set /data {old: true}")
        try #require(setUp.status == 0, "\(setUp.error)")

        let importing = try start(["--db", database, "-q", "-c", "import /data \(file)"])
        usleep(UInt32(milliseconds * 1000))
        importing.send(signal)
        let errors = importing.finish().error

        let read = try ember("--db", database, "--json", "-q", "-c", "get /data")
        try #require(read.status == 0, "the database opens after the \(signal == SIGKILL ? "kill" : "interrupt"): \(read.error)")
        let data = try Node(jsonText: read.output.trimmingCharacters(in: .whitespacesAndNewlines))
        if data == json(#"{"old":true}"#) {
            return (false, importing.process.terminationReason == .exit, importing.process.terminationStatus, errors)
        }
        #expect(data.childCount == children, "a SIGNAL \(signal) after \(milliseconds) ms left \(data.childCount) of \(children) children")
        #expect(data.child("old").isEmpty, "the old data went with the import")
        let last = ChildKey(unchecked: "k\(children - 1)")
        #expect(data.child(last) == json(#"{"name":"child number \#(children - 1)","n":\#(children - 1)}"#))
        return (true, importing.process.terminationReason == .exit, importing.process.terminationStatus, errors)
    }

    /// Before, an import removed the location, then wrote batches of 1,000 children, each its
    /// own write: a kill in between left the old data gone and part of the new.
    @Test("a SIGKILL during a large import leaves the old data or the whole import, never a part", arguments: [150, 400, 800, 1_500, 3_000])
    func killedImport(milliseconds: Int) throws {
        _ = try interruptedImport(children: 20_000, signal: SIGKILL, after: milliseconds)
    }

    @Test("Ctrl-C during a large import stops it cleanly: nothing imported, or all of it", arguments: [150, 400, 800, 1_500])
    func interruptedImport(milliseconds: Int) throws {
        let result = try interruptedImport(children: 20_000, signal: SIGINT, after: milliseconds)
        // A signal before the shell installs its handler ends the process (and imports nothing).
        guard result.exited else { return }
        if result.status != 0 {
            #expect(result.error.contains("interrupted"), "\(result.error)")
        }
        if !result.imported && result.status != 0 {
            #expect(result.error.contains("nothing was imported"), "\(result.error)")
        }
    }
}
