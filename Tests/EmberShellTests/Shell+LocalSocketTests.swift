import EmberTestSupport
import Foundation
import Testing

/// Two terminals on one database directory: the first `ember` (at a real terminal) holds it and
/// serves its local socket; a second `ember --db DIR` connects through it, says so, and their
/// writes are watched live in the other.
@Suite(.serialized)
struct ShellLocalSocketTests {
    private func first(home: String, database: String) throws -> TerminalSession {
        let executable = EmberCommandLineTests.executable.path
        try #require(FileManager.default.isExecutableFile(atPath: executable), "ember is not built at \(executable)")
        let environment = [
            "HOME": home, "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config",
            "TERM": "xterm", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "NO_COLOR": "1", "PAGER": "",
        ]
        let session = try TerminalSession(executable: executable, arguments: ["--db", database, "-q", "--no-rc"], environment: environment)
        #expect(session.waitFor("main:/> "), "no prompt; the screen: \(session.screen)")
        return session
    }

    @Test("a second ember on a held directory connects through the local socket; writes are watched live both ways")
    func secondTerminal() throws {
        let home = try TemporaryDirectory.make("ember-two").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let database = home + "/db"
        let one = try first(home: home, database: database)
        var mark = one.mark
        one.type("watch /chat\r")
        #expect(one.waitFor("watching /chat", after: mark), "the screen: \(one.screen)")
        // The second terminal writes: the first sees it at its prompt, without typing anything.
        mark = one.mark
        let two = EmberProcess.run(["--db", database, "--no-rc", "-c", "set /chat/m1 'from two'", "-c", "status"])
        #expect(two.status == 0, "\(two.output) \(two.error); the first terminal: \(one.screen)")
        #expect(two.error.contains("open in another ember: connected to it through unix:"), "\(two.error)")
        #expect(two.output.contains("held by another ember"), "\(two.output)")
        #expect(one.waitFor("m1", after: mark), "the first terminal did not see the write; the screen: \(one.screen)")
        #expect(one.screen[mark...].contains("from two"), "the screen: \(one.screen)")

        // The first writes; a second process that watches sees it arrive.
        let watcher = """
            local seen
            db:ref("chat/m2"):on("value", function(s) seen = s:val() end)
            local waited = 0
            while seen == nil and waited < 20000 do ember.sleep(50); waited = waited + 50 end
            print("saw " .. tostring(seen))
            """
        let watching = try EmberProcess.start(["--db", database, "--no-rc", "-e", watcher])
        usleep(500_000)
        one.type("set /chat/m2 'from one'\r")
        let text = watching.finish().output
        #expect(text.contains("saw from one"), "\(text)")

        // When the first leaves, the directory is free: a new ember opens it itself, with the data.
        mark = one.mark
        one.type("exit\r")
        #expect(one.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: database + "/ember.sock"))
        let after = EmberProcess.run(["--db", database, "--no-rc", "-c", "get /chat"])
        #expect(after.status == 0 && !after.error.contains("another ember"), "\(after.error)")
        #expect(after.output.contains("from one") && after.output.contains("from two"), "\(after.output)")
    }

    @Test("a command-line run lets a second process in: it reads and writes through it while the run goes on, and nothing is lost")
    func heldByACommandLineRun() throws {
        let home = try TemporaryDirectory.make("ember-two").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let database = home + "/db"
        // A script that writes and waits for every 50th write, then goes on for a while.
        let holder = try EmberProcess.start([
            "--db", database, "--no-rc", "-e",
            "for i = 1, 3000 do local h = db:ref('/w/' .. i):set(i); if i % 50 == 0 then h:wait() end end ember.sleep(2000)",
        ])
        defer { holder.process.terminate() }
        usleep(400_000)
        let second = EmberProcess.run(["--db", database, "--no-rc", "-q", "-c", "get /w/1", "-c", "set /from/second 'hi'"])
        #expect(second.status == 0, "\(second.output) \(second.error)")
        #expect(second.output.hasPrefix("1\nok"), "\(second.output)")
        #expect(second.error.contains("open in another ember: connected to it through unix:"), "\(second.error)")
        #expect(holder.process.isRunning, "the second process was answered while the run went on")
        let ended = holder.finish(timeout: 60)
        #expect(ended.status == 0, "\(ended.error)")
        let after = EmberProcess.run(["--db", database, "--no-rc", "-q", "-c", "get /from/second", "-c", "get /w/3000"])
        #expect(after.status == 0 && !after.error.contains("another ember"), "\(after.error)")
        #expect(after.output == "\"hi\"\n3000\n", "\(after.output)")
    }

    @Test("a script that never waits does not hold a second process up: it is answered, its write kept, while the loop runs")
    func heldByAScriptThatNeverWaits() throws {
        let home = try TemporaryDirectory.make("ember-busy").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let database = home + "/db"
        #expect(EmberProcess.run(["--db", database, "--no-rc", "-q", "-c", "set /x 'before'"]).status == 0)
        // A loop of writes that never waits, for 4 s of the processor (issue 38, item 6: the
        // second process waited for it to end, then failed with database_in_use).
        let holder = try EmberProcess.start([
            "--db", database, "--no-rc", "-e",
            "local r = db:ref('/y'); local t = os.clock(); local i = 0; while os.clock() - t < 4 do i = i + 1; r:set(i) end; db:ref('/count'):set(i):wait()",
        ])
        defer { holder.process.terminate() }
        usleep(700_000)
        let started = Date()
        let second = EmberProcess.run(["--db", database, "--no-rc", "-q", "-c", "get /x", "-c", "set /z 5", "-c", "get /z"])
        let took = Date().timeIntervalSince(started)
        #expect(second.status == 0, "\(second.output) \(second.error)")
        #expect(second.output == "\"before\"\nok\n5\n", "\(second.output)")
        #expect(!second.error.contains("database_in_use") && !second.error.contains("in use by another"), "\(second.error)")
        #expect(holder.process.isRunning, "answered while the loop ran (in \(took) s)")
        #expect(took < 3, "answered in \(took) s, not after the loop")
        let ended = holder.finish(timeout: 120)
        #expect(ended.status == 0, "\(ended.error)")
        let after = EmberProcess.run(["--db", database, "--no-rc", "-q", "-c", "get /z", "-c", "lua return db:ref('/y'):get():val() == db:ref('/count'):get():val()"])
        #expect(after.status == 0 && !after.error.contains("another ember"), "\(after.error)")
        #expect(after.output == "5\ntrue\n", "\(after.output)")
    }
}
