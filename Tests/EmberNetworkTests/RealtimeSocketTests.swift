import EmberTestSupport
import Foundation
import Testing

/// The WebSocket edges of `ember serve` that a browser's WebSocket cannot produce, driven by a
/// raw RFC 6455 client (`Scenarios/frames.py`, Python's standard library) against a real
/// server process: fragmented messages with pings between the fragments, stray and interleaved
/// fragments, text that is not UTF-8, messages past `--max-message`, and a client that stops
/// reading (cut off past `--max-unsent` while the others go on), and clients that hang up during
/// the upgrade (they do not keep their place under `--max-connections`), and one write fanned
/// out to 300 listeners (each gets every update once, in order; the writer its update before
/// its ack), and `--admin-token` (the secret is the administrator over REST and WebSocket; the
/// emulator's `owner` is refused), and two writers on the server's two event loops setting one
/// location at once, 300 times (every listener, the writers too, gets the updates in the
/// order the server applied them).
@Suite(.serialized)
struct RealtimeSocketTests {
    static let scenarios: [(name: String, arguments: [String])] = [
        ("fragments", []),
        ("tooLarge", ["--max-message", "100000"]),
        ("slowReader", ["--max-unsent", "2000000"]),
        ("hangUps", ["--max-connections", "5"]),
        ("fanOut", []),
        ("adminToken", ["--admin-token", "s3cret-admin-token-for-tests"]),
        ("atOnce", []),
        ("crossLoops", []),
    ]

    @Test(
        "raw WebSocket edges: fragments, bad frames, size limits, a client that stops reading, a fan-out, --admin-token, a request before the hello, writes from both event loops in the server's order",
        arguments: [0, 1, 2, 3, 4, 5, 6, 7])
    func scenario(_ index: Int) throws {
        let (name, arguments) = Self.scenarios[index]
        let server = try ServeProcess(arguments)
        defer { server.stop() }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scenarios/frames.py")
        let result = ChildProcess.run(["python3", script.path, String(server.port), name], mergingErrors: true, timeout: 120)
        #expect(result.status == 0, "scenario \(name) failed:\n\(result.output)\nserver log:\n\(server.log.suffix(3000))")
        #expect(result.output.contains("ok \(name)"), "\(result.output)")
        if name == "slowReader" {
            #expect(server.log.contains("stopped reading"), "\(server.log.suffix(3000))")
        }
    }
}
