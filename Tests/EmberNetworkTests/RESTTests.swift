import EmberTestSupport
import Foundation
import Testing

/// Firebase's REST API, event streams and hostile input against a real `ember serve`
/// (`Scenarios/rest.mjs`, with Node's fetch, raw sockets and WebSockets).
@Suite(.serialized)
struct RESTTests {
    static func expectPass(_ scenario: String, on server: ServeProcess) throws {
        let result = try NodeScenario.run("rest.mjs", [String(server.port), scenario.lowercased(), scenario])
        #expect(result.status == 0, "scenario \(scenario) failed:\n\(result.output)\nserver log:\n\(server.log.suffix(3000))")
        #expect(result.output.contains("ok \(scenario)"), "\(result.output)")
    }

    static let scenarios: [Scenario] = [
        Scenario("basics", "GET, PUT, POST, PATCH, DELETE, method override, shallow, format=export, print, server values"),
        Scenario("errors", "errors in Firebase's words: bad paths, JSON, keys, queries, tokens, overlapping updates, bodies past the limit"),
        Scenario("queries", "orderBy, ranges, limits, equalTo and bounds with keys"),
        Scenario("etags", "ETags: X-Firebase-ETag, if-none-match 304, if-match 412 with the current value, null_etag"),
        Scenario("rules", "rules at /.settings/rules.json (source and strict), auth=, Bearer owner, auth_variable_override"),
        Scenario("stream", "event streams: the first put, a push's put, a patch, a write above the location"),
        Scenario("hostileHTTP", "hostile HTTP: garbage, truncated and huge requests are refused and the server goes on"),
        Scenario("hostileFrames", "hostile WebSocket frames: errors or a close, never a crash; split messages; pings"),
    ]

    @Test("a REST scenario against ember serve", arguments: scenarios)
    func scenario(_ scenario: Scenario) throws {
        try Self.expectPass(scenario.name, on: try ServeProcess())
    }

    @Test("SIGTERM stops the server gracefully and what it acknowledged is there after a restart")
    func gracefulStopKeepsData() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ember-serve-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServeProcess(["--db", directory.path])
        let result = try NodeScenario.run("rest.mjs", [String(server.port), "default", "basics"])
        #expect(result.status == 0, "\(result.output)")
        #expect(server.stop() == 0, "the server's exit status after SIGTERM: \(server.log.suffix(2000))")
        let again = try ServeProcess(["--db", directory.path])
        defer { again.stop() }
        let read = ChildProcess.run(["curl", "-s", "\(again.url)/a.json"], mergingErrors: true)
        #expect(read.output == #"{"b":{"x":2}}"#, "after a restart: \(read.output)")
        // The default namespace is the directory itself: the shell opens the same data.
        again.stop()
        let shell = ChildProcess.run([ServeProcess.executable.path, "--db", directory.path, "--json", "-c", "get /a/b/x"], mergingErrors: true)
        #expect(shell.output.contains("2"), "the shell on the same directory: \(shell.output)")
    }

    @Test("a graceful stop ends open WebSockets and streams at once, and their onDisconnect writes are kept")
    func gracefulStopWithOpenConnections() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ember-serve-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServeProcess(["--db", directory.path])
        let app = try NodeScenario.start("websdk.mjs", [String(server.port), "default", "presence", "app"])
        app.waitForOutput(containing: "ready", timeout: 30)
        try #require(app.output.contains("ready"), "the app did not start: \(app.output)")
        let stream = try ChildProcess.start(["curl", "-s", "-N", "-H", "Accept: text/event-stream", "\(server.url)/presence.json"])
        usleep(300_000)
        let started = Date()
        #expect(server.stop() == 0, "the exit status: \(server.log.suffix(2000))")
        #expect(Date().timeIntervalSince(started) < 5, "the stop waited for the open connections")
        app.stop()
        stream.stop()
        let again = try ServeProcess(["--db", directory.path])
        defer { again.stop() }
        let read = ChildProcess.run(["curl", "-s", "\(again.url)/presence/app/online.json"], mergingErrors: true)
        #expect(read.output == "false", "the onDisconnect write after the restart: \(read.output)")
    }

    @Test("an event stream whose client goes away ends at once (its listen closed), not at its next write")
    func abandonedStreamEndsAtOnce() throws {
        let server = try ServeProcess(["--max-connections", "1"])
        defer { server.stop() }
        for round in 0..<3 {
            let stream = try ChildProcess.start(["curl", "-s", "-N", "-H", "Accept: text/event-stream", "\(server.url)/quiet.json"])
            var deadline = Date().addingTimeInterval(10)
            while server.log.components(separatedBy: "stream of /quiet opened").count <= round + 1, Date() < deadline { usleep(20_000) }
            stream.send(SIGKILL)
            stream.finish()
            // Nothing is written to /quiet: the server learns of it from the closed connection.
            deadline = Date().addingTimeInterval(3)
            while server.log.components(separatedBy: "stream of /quiet closed").count <= round + 1, Date() < deadline { usleep(20_000) }
            #expect(server.log.components(separatedBy: "stream of /quiet closed").count == round + 2, "round \(round): \(server.log.suffix(1500))")
        }
        // With --max-connections 1, a stream still opens: the abandoned ones gave their place back.
        let check = ChildProcess.run(["curl", "-s", "-m", "2", "-N", "-H", "Accept: text/event-stream", "\(server.url)/quiet.json"], mergingErrors: true, timeout: 10)
        #expect(check.output.contains("event: put"), "\(check.output)")
    }

    @Test("README's ember serve block: its curl commands give what it says")
    func readmeServeBlock() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let section = try #require(text.components(separatedBy: "### Serving Firebase's clients").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first)
        let server = try ServeProcess(["--ns", "demo"])
        defer { server.stop() }
        var checked = 0
        for line in block.split(separator: "\n") where (line.hasPrefix("curl") && !line.contains("event-stream")) || line.hasPrefix("scripts/ember --connect") {
            let parts = line.components(separatedBy: "  # ")
            let command = parts[0].replacingOccurrences(of: "127.0.0.1:9000", with: "127.0.0.1:\(server.port)")
                .replacingOccurrences(of: "curl ", with: "curl -s ")
                .replacingOccurrences(of: "scripts/ember ", with: "HOME=\(FileManager.default.temporaryDirectory.path) \(ServeProcess.executable.path) --no-rc --memory ")
            let result = ChildProcess.run(["sh", "-c", command], mergingErrors: true)
            #expect(result.status == 0, "\(command): \(result.output)")
            if parts.count > 1 {
                #expect(result.output.trimmingCharacters(in: .newlines) == parts[1].trimmingCharacters(in: .whitespaces), "\(command)")
                checked += 1
            }
        }
        #expect(checked == 2, "the block's commented output")
    }
}
