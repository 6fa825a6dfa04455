import EmberTestSupport
import Foundation
import Testing

/// ``TokenExpiryWatch`` against a real `ember serve` (`Scenarios/edge.py expiry`): a listen and
/// an event stream whose token expires while their clients send nothing are revoked at the
/// expiry, as Firebase does (`ac` with `expired_token` and the listen rechecked; the stream's
/// `auth_revoked`, then its end).
@Suite(.serialized)
struct TokenExpiryWatchTests {
    @Test("a silent listen and an event stream are revoked when their token expires")
    func expiry() throws {
        let server = try ServeProcess()
        defer { server.stop() }
        ConnectionGateTests.expectPass("expiry", on: server)
    }

    @Test("under --project, signed tokens: a silent listen and an event stream are revoked at the expiry")
    func signedExpiry() throws {
        let python = try AdminSDKTests.python.get()
        let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scenarios")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ember-expiry-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = ChildProcess.run([python, "tokens.py", "keys", directory.path], directory: scenarios, mergingErrors: true, timeout: 60)
        try #require(made.status == 0, "tokens.py keys: \(made.output)")
        let server = try ServeProcess(["--project", "demo-ember", "--certs", directory.appendingPathComponent("certs.json").path])
        defer { server.stop() }
        let result = ChildProcess.run([python, "tokens.py", "expiry", String(server.port), directory.path], directory: scenarios, mergingErrors: true, timeout: 60)
        #expect(result.status == 0, "tokens.py expiry failed:\n\(result.output)\nserver log:\n\(server.log.suffix(3000))")
        #expect(result.output.contains("ok expiry"), "\(result.output)")
    }
}
