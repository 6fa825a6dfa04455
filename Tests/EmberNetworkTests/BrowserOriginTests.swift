import EmberTestSupport
import Foundation
import Testing

/// ``OriginPolicy`` in a real browser (``BrowserHarness``: Debian's Chromium, headless, driven by
/// Playwright), where `OriginPolicyTests` speaks raw sockets: `Scenarios/origins.py` opens pages
/// of four origins, all on this machine (made-up names mapped to 127.0.0.1), against an
/// `ember serve --allow-origin http://app.example:PAGES` whose rules let only a signed-in user
/// read. Pages at 127.0.0.1, localhost and the allowed origin read the value the administrator
/// wrote by fetch (with `Authorization: Bearer owner` and `?auth=owner`), JSONP, an EventSource,
/// a WebSocket speaking the realtime protocol (gauth owner) and the Firebase Web SDK, and write
/// by a no-cors POST; a page of another origin, and a page whose name was rebound to the
/// server (DNS rebinding), read and write nothing.
@Suite(.serialized)
struct BrowserOriginTests {
    @Test("in Chromium, pages on this machine and of --allow-origin use the server; another origin's page and a rebound name get nothing")
    func origins() throws {
        let harness = try BrowserHarness.prepared.get()
        let sdk = URL(fileURLWithPath: try SyncPointSpec.fixturePath()).deletingLastPathComponent().appendingPathComponent("firebase-js-sdk")
        let directory = try TemporaryDirectory.make("ember-browser")
        defer { TemporaryDirectory.remove(directory) }
        let rules = directory.appendingPathComponent("rules.json")
        try Data(#"{"rules": {".read": "auth != null", ".write": "auth != null"}}"#.utf8).write(to: rules)

        // The scenario serves its pages on a free port first, and says which: the allowed
        // origin's port is known before the server starts.
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scenarios/origins.py")
        let scenario = try harness.start(script, [sdk.path], input: .pipe)
        defer { scenario.stop(grace: 5) }
        scenario.waitForOutput(timeout: 60) { $0.contains("\n") }
        let first = scenario.output.split(separator: "\n").first.map(String.init) ?? ""
        let pages = try #require(first.hasPrefix("pages ") ? Int(first.dropFirst("pages ".count)) : nil, "origins.py did not start: \(scenario.output)")

        let server = try ServeProcess(["--rules", rules.path, "--ns", "browser", "--allow-origin", "http://app.example:\(pages)"])
        defer { server.stop() }
        let input = try #require(scenario.input)
        if scenario.isRunning { try input.write(contentsOf: Data("\(server.port)\n".utf8)) }
        try? input.close()

        let result = scenario.finish(timeout: 300)
        #expect(
            result.status == 0 && result.output.contains("ok origins"),
            "origins.py (status \(result.status)); what each page got and what the browser saw:\n\(result.output)\nserver log:\n\(server.log.suffix(4000))")
    }
}
