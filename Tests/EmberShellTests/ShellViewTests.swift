import EmberTestSupport
import Foundation
import Testing

/// `view` at the prompt (a pseudo-terminal): it prints the viewer's address on 127.0.0.1, and
/// the page, in Chromium, shows the data beside each client's cache and queued writes and the
/// protocol's messages as a timeline (issue 39, item 4); a screenshot is kept in
/// `.build/test-output/viewer-session.png`.
@Suite(.serialized)
struct ShellViewTests {
    @Test("view prints an address on 127.0.0.1 whose page shows the data, the clients' caches and queues, and the protocol timeline, and the rules' decisions")
    func viewAtThePrompt() throws {
        let harness = try BrowserHarness.prepared.get()
        let home = try TemporaryDirectory.make("ember-view").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let executable = EmberCommandLineTests.executable.path
        let environment = [
            "HOME": home, "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config",
            "TERM": "xterm", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "NO_COLOR": "1", "PAGER": "",
        ]
        let session = try TerminalSession(executable: executable, arguments: ["--memory", "-q", "--no-rc"], environment: environment)
        #expect(session.waitFor("main:/> "), "no prompt: \(session.screen)")
        session.type("view\r")
        #expect(session.waitFor("open it in a browser"), "\(session.screen)")
        let match = session.screen.firstMatch(of: /http:\/\/127\.0\.0\.1:[0-9]+\//)
        let address = try #require(match.map { String($0.output) }, "no address: \(session.screen)")
        session.type("set /chat/m1 'hi'\r")
        #expect(session.waitFor("ok"))
        session.type("client bob\r")
        session.type("watch /chat\r")
        #expect(session.waitFor("(bob, server)"), "\(session.screen)")
        session.type("offline\r")
        session.type("set /chat/m2 'queued'\r")
        #expect(session.waitFor("queued (offline)"), "\(session.screen)")
        let rules = home + "/rules.json"
        try #"{"rules": {".read": true, "chat": {".write": true}, "locked": {".write": false}}}"#.write(toFile: rules, atomically: true, encoding: .utf8)
        session.type("client main\r")
        session.type("rules load \(rules)\r")
        #expect(session.waitFor("loaded"), "\(session.screen)")
        session.type("set /locked 1\r")
        #expect(session.waitFor("permission denied"), "\(session.screen)")

        let output = PythonEnvironment.packageRoot.appendingPathComponent(".build/test-output")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let screenshot = output.appendingPathComponent("viewer-session.png")
        let script = PythonEnvironment.packageRoot.appendingPathComponent("Tests/EmberNetworkTests/Scenarios/viewer_session.py")
        let result = harness.run(script, [address, screenshot.path], timeout: 120)
        #expect(result.status == 0 && result.output.contains("ok session"), "viewer_session.py (status \(result.status)):\n\(result.output)")
        session.type("exit\r")
        #expect(session.waitForExit() == 0)
    }
}
