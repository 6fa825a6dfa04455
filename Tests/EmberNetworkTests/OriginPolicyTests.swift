import EmberTestSupport
import Foundation
import Testing

/// ``OriginPolicy`` against a real `ember serve --allow-origin https://app.example`, driven by raw
/// sockets (`Scenarios/edge.py origins`): a page of another origin (CORS preflight, simple
/// requests, WebSocket upgrades) and DNS rebinding (a `Host` that is not the server's) get
/// nothing, not even with `Bearer owner` or `gauth owner`; pages on this machine, the allowed
/// origin and clients that send no `Origin` (Node, curl, the Admin SDK) are served.
@Suite(.serialized)
struct OriginPolicyTests {
    @Test("another origin and a rebinding host are refused; loopback origins, --allow-origin and no Origin are served")
    func origins() throws {
        let server = try ServeProcess(["--allow-origin", "https://app.example"])
        defer { server.stop() }
        let result = EdgeScenario.run("origins", on: server)
        #expect(result.status == 0, "\(result.output)\nserver log:\n\(server.log.suffix(3000))")
        #expect(result.output.contains("ok origins"), "\(result.output)")
    }
}

extension OriginPolicyTests {
    @Test("--allow-origin takes an origin as a browser sends it, or *")
    func allowOriginArgument() {
        for origin in ["foo", "https://x.example/path", "ftp://x.example", "https://x.example?q"] {
            let result = ChildProcess.run([ServeProcess.executable.path, "serve", "--memory", "--port", "0", "--allow-origin", origin], mergingErrors: true, timeout: 20)
            #expect(result.status != 0, "\(origin): \(result.output)")
            #expect(result.output.contains("--allow-origin \(origin): an origin is scheme://host[:port]"), "\(origin): \(result.output)")
        }
    }
}

/// Runs a scenario of `Scenarios/edge.py` against a server, at most `timeout` seconds (the
/// server's process id in `EMBER_PID`, for scenarios that read its memory).
enum EdgeScenario {
    static func run(_ name: String, on server: ServeProcess, timeout: TimeInterval = 120) -> ChildProcess.Result {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scenarios/edge.py")
        return ChildProcess.run(
            ["python3", script.path, String(server.port), name], environment: ["EMBER_PID": String(server.process.processIdentifier)],
            mergingErrors: true, timeout: timeout)
    }
}
