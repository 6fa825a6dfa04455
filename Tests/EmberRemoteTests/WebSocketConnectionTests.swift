import EmberTestSupport
import Foundation
import Testing

/// `ember --connect`: shells in other processes drive a real `ember serve` through the realtime
/// protocol (WebSocketConnection), with the whole shell and Lua API.
@Suite(.serialized)
struct WebSocketConnectionTests {
    /// A home of its own for each test: the clients' caches per URL live under it.
    private let home = FileManager.default.temporaryDirectory.appendingPathComponent("ember-connect-\(UUID().uuidString)")

    /// Runs `ember --connect URL ARGUMENTS` to its end (at most 60 s).
    private func ember(_ url: String, _ arguments: [String], timeout: TimeInterval = 60) -> ChildProcess.Result {
        ChildProcess.run(
            [ServeProcess.executable.path, "--connect", url, "--no-rc"] + arguments, environment: ["HOME": home.path, "NO_COLOR": "1"],
            mergingErrors: true, timeout: timeout)
    }

    private func url(_ server: ServeProcess, ns: String = "demo") -> String { "ws://127.0.0.1:\(server.port)/?ns=\(ns)" }

    @Test("every shell command a user types works through --connect, and the data is the server's")
    func shellCommands() throws {
        let server = try ServeProcess()
        defer { server.stop() }
        let run = ember(url(server), [
            "--memory", "-c", "set /dinos {rex: {height: 4, length: 12}, ptero: {height: 1, length: 2}}",
            "-c", "update /dinos/rex {height: 5}", "-c", "get /dinos/rex/height",
            "-c", "ls /dinos orderBy child length limitToLast 1", "-c", "remove -y /dinos/ptero", "-c", "get /dinos",
        ])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("5\n"))
        #expect(run.output.contains("rex"))
        // The server holds it: read over REST.
        let rest = ChildProcess.run(["curl", "-s", "\(server.url)/dinos.json?ns=demo"], mergingErrors: true)
        #expect(rest.output == #"{"rex":{"height":5,"length":12}}"#)
    }

    @Test("two --connect processes watch each other: B's pushes reach A's listener in order")
    func twoProcessesWatchEachOther() throws {
        let server = try ServeProcess()
        defer { server.stop() }
        let watcher = """
            local seen = {}
            db:ref("chat"):on("child_added", function(s) seen[#seen + 1] = s:child("text"):val() end)
            db:ref("ready/a"):set(true)
            local waited = 0
            while #seen < 3 and waited < 60000 do ember.sleep(50); waited = waited + 50 end
            print("A saw: " .. table.concat(seen, ","))
            """
        let watching = try ChildProcess.start(
            [ServeProcess.executable.path, "--connect", url(server), "--no-rc", "--memory", "-e", watcher], environment: ["HOME": home.path],
            mergingErrors: true)
        // Both wait on listeners (not a get per turn, which a loaded machine makes slow).
        let writer = """
            local ready = false
            db:ref("ready/a"):on("value", function(s) ready = s:val() == true end)
            local waited = 0
            while not ready and waited < 60000 do ember.sleep(50); waited = waited + 50 end
            for _, text in ipairs({"one", "two", "three"}) do db:ref("chat"):push({text = text}) end
            print("B pushed")
            """
        let b = ember(url(server), ["--memory", "-e", writer], timeout: 120)
        #expect(b.status == 0, "\(b.output)")
        #expect(b.output.contains("B pushed"))
        let watched = watching.finish(timeout: 120)
        let a = watched.output
        #expect(watched.status == 0, "\(a)")
        #expect(a.contains("A saw: one,two,three"), "\(a)")
    }

    @Test("transactions from three --connect processes on one counter: none lost")
    func contendedTransactions() throws {
        let server = try ServeProcess()
        defer { server.stop() }
        // A transaction that lost 25 races in a row gives up (max_retries, as Firebase's
        // clients do) without being applied; on a loaded machine one process can lose that often
        // to the other two. It runs again (at most 5 times); every increment must still commit
        // exactly once, which the counter checks.
        let script = """
            for i = 1, 15 do
              for attempt = 1, 5 do
                local ok, committed = pcall(function()
                  return db:ref("counter"):transaction(function(v) return (v or 0) + 1 end)
                end)
                if ok then
                  assert(committed, "a transaction did not commit")
                  break
                end
                assert(attempt < 5 and committed.code == "max_retries", tostring(committed))
              end
            end
            print("done")
            """
        let processes = try (0..<3).map { _ in
            try ChildProcess.start(
                [ServeProcess.executable.path, "--connect", url(server), "--no-rc", "--memory", "-e", script], environment: ["HOME": home.path],
                mergingErrors: true)
        }
        for process in processes {
            let ended = process.finish(timeout: 120)
            #expect(ended.status == 0 && ended.output.contains("done"), "\(ended.output)")
        }
        #expect(ChildProcess.run(["curl", "-s", "\(server.url)/counter.json?ns=demo"], mergingErrors: true).output == "45")
    }

    @Test("a --connect process killed with SIGKILL: its onDisconnect runs, seen by another process")
    func onDisconnectAfterSIGKILL() throws {
        let server = try ServeProcess()
        defer { server.stop() }
        let presence = """
            db:ref("status/a"):onDisconnect():set("offline")
            db:ref("status/a"):set("online")
            ember.flush()
            print("ready")
            while true do ember.sleep(1000) end
            """
        let process = try ChildProcess.start(
            [ServeProcess.executable.path, "--connect", url(server), "--no-rc", "--memory", "-e", presence], environment: ["HOME": home.path],
            mergingErrors: true)
        process.waitForOutput(containing: "ready", timeout: 30)
        #expect(process.output.contains("ready"), "\(process.output)")
        #expect(ember(url(server), ["--memory", "-c", "get /status/a"]).output.contains("\"online\""))
        process.send(SIGKILL)
        process.finish()
        let watcher = """
            local status
            db:ref("status/a"):on("value", function(s) status = s:val() end)
            local waited = 0
            while status ~= "offline" and waited < 60000 do ember.sleep(50); waited = waited + 50 end
            print("status " .. tostring(status))
            """
        let b = ember(url(server), ["--memory", "-e", watcher], timeout: 120)
        #expect(b.output.contains("status offline"), "\(b.output)")
    }

    @Test("offline, online and drop act on the client's own connection; a queued write waits on disk per URL across runs")
    func offlineQueueAcrossRuns() throws {
        let server = try ServeProcess()
        defer { server.stop() }
        // Offline: the write is queued in the client's store under the URL's cache directory.
        let first = ember(url(server), ["--offline", "-c", "set /queued 'kept'", "-c", "status"])
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("queued (offline)"), "\(first.output)")
        #expect(ChildProcess.run(["curl", "-s", "\(server.url)/queued.json?ns=demo"], mergingErrors: true).output == "null")
        // A new run on the same URL sends it when it connects.
        let second = ember(url(server), ["-c", "get /queued"])
        #expect(second.output.contains("\"kept\""), "\(second.output)")
        #expect(ChildProcess.run(["curl", "-s", "\(server.url)/queued.json?ns=demo"], mergingErrors: true).output == #""kept""#)
        // offline / online / drop in one session.
        let third = ember(url(server), [
            "--memory", "-c", "offline", "-c", "set /later 1", "-c", "online", "-c", "drop", "-c", "set /after 2", "-c", "get /after",
        ])
        #expect(third.status == 0, "\(third.output)")
        let both = ChildProcess.run(["curl", "-s", "\(server.url)/.json?ns=demo&shallow=true"], mergingErrors: true).output
        #expect(both.contains("\"later\":true") && both.contains("\"after\":true"), "\(both)")
    }

    @Test("commands that act on the server itself say they need an embedded server")
    func serverOnlyCommandsRefused() throws {
        let server = try ServeProcess()
        defer { server.stop() }
        for command in ["server latency 5", "server timeout 100", "server clock skew 1000", "rules trace on", "rules coverage", "explain"] {
            let run = ember(url(server), ["--memory", "--json", "-c", command])
            #expect(run.status == 1, "\(command): \(run.output)")
            #expect(run.output.contains("needs_embedded_server"), "\(command): \(run.output)")
        }
    }

    @Test("rules show, load and open reach a remote server's rules over REST, as its administrator; a bad file names its line and changes nothing")
    func remoteRules() throws {
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let rules = home.appendingPathComponent("chat.json")
        try "// users write their own\n{\"rules\": {\"users\": {\"$uid\": {\".write\": \"auth.uid === $uid\", \".read\": true}}}}\n"
            .write(to: rules, atomically: true, encoding: .utf8)
        let bad = home.appendingPathComponent("bad.json")
        try "{\"rules\": {\n  \".read\": tru\n}}\n".write(to: bad, atomically: true, encoding: .utf8)
        let server = try ServeProcess()
        defer { server.stop() }
        let anonymous = ember(url(server), ["--memory", "--json", "-c", "rules show"])
        #expect(anonymous.status == 1 && anonymous.output.contains("permission_denied"), "\(anonymous.output)")
        let owner = ember(url(server), ["--memory", "--auth", "owner", "-c", "rules load \(rules.path)", "-c", "rules show"])
        #expect(owner.status == 0, "\(owner.output)")
        #expect(owner.output.contains("loaded \(rules.path) on \(url(server)): 1 .read, 1 .write, 0 .validate"), "\(owner.output)")
        #expect(owner.output.contains("// users write their own"), "the document as loaded, comments and all: \(owner.output)")
        // In force on the server: an anonymous write is refused now.
        let refused = ember(url(server), ["--memory", "--json", "-c", "set /users/alice 1"])
        #expect(refused.status == 1 && refused.output.contains("permission_denied"), "\(refused.output)")
        let broken = ember(url(server), ["--memory", "--auth", "owner", "--json", "-c", "rules load \(bad.path)"])
        #expect(broken.status == 1 && broken.output.contains("\(bad.path):2:"), "\(broken.output)")
        #expect(broken.output.contains("unchanged"), "\(broken.output)")
        let shown = ember(url(server), ["--memory", "--auth", "owner", "--json", "-c", "rules show"])
        #expect(shown.output.contains(#""open":false"#) && shown.output.contains("auth.uid === $uid"), "\(shown.output)")
        let opened = ember(url(server), ["--memory", "--auth", "owner", "-c", "rules open", "-c", "set /users/alice 1"])
        #expect(opened.status == 0 && opened.output.contains("are open"), "\(opened.output)")
        // ember.rules from Lua: the same, waiting for the server's answer.
        let lua = ember(url(server), [
            "--memory", "--auth", "owner", "-e",
            #"ember.rules('{"rules": {".read": true, ".write": false}}'); print(ember.rules()); print(pcall(ember.rules, '{"rules": 5'))"#,
        ])
        #expect(lua.output.contains(#"{"rules": {".read": true, ".write": false}}"#), "\(lua.output)")
        #expect(lua.output.contains("false"), "a bad document is an error: \(lua.output)")
        let anonymousLua = ember(url(server), ["--memory", "-e", "print(pcall(ember.rules))"])
        #expect(anonymousLua.output.contains("Permission denied"), "\(anonymousLua.output)")
    }

    @Test("--auth: owner passes rules that refuse everyone; an ID token signs in as its user")
    func authWithRules() throws {
        let rules = home.appendingPathComponent("rules.json")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try #"{"rules": {"users": {"$uid": {".read": "auth.uid === $uid", ".write": "auth.uid === $uid"}}}}"#
            .write(to: rules, atomically: true, encoding: .utf8)
        let server = try ServeProcess(["--rules", rules.path])
        defer { server.stop() }
        let anonymous = ember(url(server), ["--memory", "--json", "-c", "set /users/alice 1"])
        #expect(anonymous.status == 1 && anonymous.output.contains("permission_denied"), "\(anonymous.output)")
        let owner = ember(url(server), ["--memory", "--auth", "owner", "-c", "set /open 1", "-c", "get /open"])
        #expect(owner.status == 0 && owner.output.contains("1"), "\(owner.output)")
        // An unsigned emulator token for alice (as the Web SDK's mock tokens).
        func part(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
        }
        let token = part(#"{"alg":"none","typ":"JWT"}"#) + "." + part(#"{"sub":"alice","iat":0,"exp":99999999999}"#) + "."
        let alice = ember(url(server), ["--memory", "--auth", token, "-c", "set /users/alice 'mine'", "--json", "-c", "set /users/bob 'no'"])
        #expect(alice.output.contains("ok"), "\(alice.output)")
        #expect(alice.output.contains("permission_denied"), "\(alice.output)")
        #expect(ChildProcess.run(["curl", "-s", "\(server.url)/users/alice.json?ns=demo&auth=owner"], mergingErrors: true).output == #""mine""#)
        // Lua clients of a session signed in with --auth: one given its own auth is that user;
        // the others are the session's.
        let lua = ember(url(server), [
            "--memory", "--auth", token, "-e",
            """
            local bob = ember.client("bob", {auth = {uid = "bob"}})
            local own = bob:ref("users/bob"):set("b"):wait()
            local _, other = bob:ref("users/alice"):set("x"):wait()
            local carol = ember.client("carol")
            local asAlice = carol:ref("users/alice"):set("by alice"):wait()
            print("bob own " .. tostring(own) .. ", bob other " .. tostring(other and other.code) .. ", carol as alice " .. tostring(asAlice))
            """,
        ])
        #expect(lua.output.contains("bob own true, bob other permission_denied, carol as alice true"), "\(lua.output)")
    }

    @Test("ember serve --db DIR serves DIR's local socket: ember --db DIR connects to it instead of being refused")
    func serveSharesItsDirectory() throws {
        let directory = home.appendingPathComponent("db").path
        let server = try ServeProcess(["--db", directory])
        let run = ChildProcess.run(
            [ServeProcess.executable.path, "--db", directory, "--no-rc", "-c", "set /shared 'yes'", "-c", "get /shared"],
            environment: ["HOME": home.path], mergingErrors: true, timeout: 60)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("open in another ember: connected to it through unix:"), "\(run.output)")
        #expect(ChildProcess.run(["curl", "-s", "\(server.url)/shared.json"], mergingErrors: true).output == #""yes""#)
        // Through the local socket (which only the directory's owner can open) the rules are
        // the second terminal's to read and set.
        let rules = ChildProcess.run(
            [ServeProcess.executable.path, "--db", directory, "--no-rc", "-c", "rules open", "-c", "rules show"],
            environment: ["HOME": home.path], mergingErrors: true, timeout: 60)
        #expect(rules.status == 0 && rules.output.contains("are open") && rules.output.contains(#"".write": true"#), "\(rules.output)")
        // Stopped, the server removes its socket; the directory opens directly again, with the data.
        #expect(server.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: directory + "/ember.sock"))
        let after = ChildProcess.run([ServeProcess.executable.path, "--db", directory, "--no-rc", "-c", "get /shared"], environment: ["HOME": home.path], mergingErrors: true)
        #expect(after.output == "\"yes\"\n", "\(after.output)")
    }

    /// A WebSocket server that puts its hello in the same write as the 101 that accepts the
    /// upgrade (as a loaded server often does, and any server may), then ignores what comes.
    private static let eagerServer = #"""
        import base64, hashlib, socket, sys, threading
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        print(listener.getsockname()[1], flush=True)
        def serve(connection):
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = connection.recv(4096)
                if not chunk: return
                request += chunk
            key = [line.split(b":", 1)[1].strip() for line in request.split(b"\r\n") if line.lower().startswith(b"sec-websocket-key:")][0]
            accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
            hello = b'{"t":"c","d":{"t":"h","d":{"ts":1700000000000,"v":"5","h":"127.0.0.1","s":"eager"}}}'
            connection.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "
                + accept + b"\r\n\r\n" + bytes([0x81, len(hello)]) + hello)
            while connection.recv(4096): pass
        while True:
            connection, _ = listener.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()
        """#

    @Test("a hello that arrives in the same read as the 101 opens the connection (it was dropped: ember --connect waited for ever)")
    func helloWithTheUpgrade() throws {
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let script = home.appendingPathComponent("eager.py")
        try Self.eagerServer.write(to: script, atomically: true, encoding: .utf8)
        let server = try ChildProcess.start(["python3", script.path], mergingErrors: true)
        // SIGKILL: a child of the test process starts with SIGTERM blocked (Foundation's
        // Process passes the spawning thread's signal mask on), so terminate() left it running.
        defer {
            server.send(SIGKILL)
            server.finish()
        }
        server.waitForOutput(timeout: 30) { $0.contains("\n") }
        let port = server.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(port) != nil, "the fake server did not start: \(port)")
        // Well inside the 30 s a connection waits for a hello before it gives up.
        for _ in 0..<3 {
            let run = ember("ws://127.0.0.1:\(port)/?ns=eager", ["--memory", "-c", "status"], timeout: 15)
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("connection:         connected"), "\(run.output)")
        }
    }

    @Test("bad URLs are usage errors; a server that is not there is said plainly, and reads wait then fail offline")
    func badAddresses() throws {
        for bad in ["127.0.0.1:9000", "ftp://x/", "ws://", "ws://h:99999/", "ws://h:1/?ns=a.b", "unix:relative"] {
            let run = ember(bad, ["--memory", "-c", "get /"])
            #expect(run.status != 0, "\(bad): \(run.output)")
            #expect(run.output.contains(bad) || run.output.contains("--connect"), "\(bad): \(run.output)")
        }
        // Nothing listens on this port (bound then closed).
        let nobody = ember("ws://127.0.0.1:9/?ns=demo", ["--memory", "-c", "get /x"], timeout: 30)
        #expect(nobody.status == 1, "\(nobody.output)")
        #expect(nobody.output.contains("cannot reach ws://127.0.0.1:9/?ns=demo: connection refused\n"), "\(nobody.output)")
        #expect(nobody.output.contains("client main is not connected (disconnected) and has no cached data at /x"), "\(nobody.output)")
    }
}
