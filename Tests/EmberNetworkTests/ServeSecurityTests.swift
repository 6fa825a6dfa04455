import EmberTestSupport
import Foundation
import Testing

/// What signed-out and impostor clients must not learn or do against a real `ember serve` with
/// rules in force (issue 37), driven by `Scenarios/security.py` over the realtime protocol and
/// REST: canonically equivalent strings are different users and keys.
@Suite(.serialized)
struct ServeSecurityTests {
    static let ownData = #"{"rules": {"users": {"$uid": {".read": "$uid === auth.uid", ".write": "$uid === auth.uid"}}}}"#

    /// Writes `text` to a rules file of its own; the caller removes it.
    static func rulesFile(_ text: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ember-security-\(getpid())-\(UUID().uuidString).json")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Runs `scenario` of `security.py` against `server` and expects it to pass.
    static func expectPass(_ scenario: String, on server: ServeProcess) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scenarios/security.py")
        let result = ChildProcess.run(["python3", script.path, String(server.port), scenario], mergingErrors: true, timeout: 120)
        #expect(result.status == 0, "scenario \(scenario) failed:\n\(result.output)\nserver log:\n\(server.log.suffix(3000))")
        #expect(result.output.contains("ok \(scenario)"), "\(result.output)")
    }

    @Test("under \"$uid === auth.uid\", a mock token for \\u212Aate, e\\u0301mile or a\\u037Eb reads and writes nothing of Kate's, \\u00e9mile's or a;b's; such keys are siblings")
    func canonicallyEquivalentUsers() throws {
        try Self.expectPass("canonical", rules: Self.ownData)
    }

    @Test("a hash-guarded put is refused by the rules whatever the hash: a wrong one, the right one and \"\" alike (realtime and REST if-match)")
    func hashGuardedPutsAreNoOracle() throws {
        try Self.expectPass("hashOracle", rules: #"{"rules": {".read": false, ".write": false, "public": {".read": true}}}"#)
    }

    @Test("with --db and rules in force, reads, writes and connections of signed-out and signed-in clients create no namespace; the administrator's write (REST, or gauth over WebSocket) and --ns do, and they outlive a restart")
    func unknownNamespacesAreNotCreated() throws {
        let rules = try Self.rulesFile(#"{"rules": {"open": {".read": true}}}"#)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ember-namespaces-\(getpid())-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: rules)
            try? FileManager.default.removeItem(at: directory)
        }
        let namespaces = directory.appendingPathComponent("namespaces")
        func created() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: namespaces.path)) ?? []).sorted() }
        let server = try ServeProcess(["--db", directory.path, "--rules", rules.path, "--ns", "default", "--ns", "listed"])
        Self.expectPass("unknownNamespaces", on: server)
        #expect(created() == ["listed", "realapp", "wsapp"], "namespaces on disk: \(created())")
        #expect(server.stop() == 0)
        let again = try ServeProcess(["--db", directory.path, "--rules", rules.path, "--ns", "default", "--ns", "listed"])
        defer { again.stop() }
        Self.expectPass("afterRestart", on: again)
        #expect(created() == ["listed", "realapp", "wsapp"], "namespaces on disk after a restart: \(created())")
    }

    @Test("under deny-all rules, a signed-out REST PATCH of 1,000,000 paths (14 MB) is refused without being parsed: the server grows by less than 80 MB (it grew by 163 MB)")
    func refusedPatchIsNotParsed() throws {
        try Self.expectPass("refusedPatch", rules: #"{"rules": {".read": false, ".write": false}}"#, growingLessThan: 80 << 20)
    }

    @Test("a signed-out realtime merge of 1,000,000 paths (14 MB) where the rules refuse every write is answered unread: the server grows by less than 80 MB (it grew by 146 MB); large merges the rules may take are read whole, in order with what follows them")
    func refusedMergeIsNotParsed() throws {
        try Self.expectPass(
            "refusedMerge", rules: #"{"rules": {".read": false, ".write": false, "open": {".write": true}, "mine": {".write": "auth != null"}}}"#,
            arguments: ["--ns", "merges"], growingLessThan: 80 << 20)
    }

    /// Runs `scenario` on a server of its own under `rules`: it passes, and, with a bound, the
    /// server's peak memory grows by less than `bound` bytes meanwhile.
    static func expectPass(_ scenario: String, rules text: String, arguments: [String] = [], growingLessThan bound: Int? = nil) throws {
        let rules = try rulesFile(text)
        defer { try? FileManager.default.removeItem(at: rules) }
        let server = try ServeProcess(["--rules", rules.path] + arguments)
        defer { server.stop() }
        let before = try peakMemory(of: server)
        expectPass(scenario, on: server)
        guard let bound else { return }
        let grown = try peakMemory(of: server) - before
        #expect(grown < bound, "the server's peak memory grew by \(grown >> 20) MB")
    }

    @Test("with rules in force, a stream and a realtime connection on a namespace that does not exist end when the administrator creates it, and read its data once opened again")
    func streamsOnAnAbsentNamespaceEndWhenItIsCreated() throws {
        try Self.expectPass("streamOnCreation", rules: #"{"rules": {".read": true, ".write": false}}"#)
    }

    /// The peak resident memory of `server`'s process (VmHWM), in bytes.
    static func peakMemory(of server: ServeProcess) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(server.process.processIdentifier)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try #require(Int(line.split(separator: " ").dropFirst().first ?? "")) * 1024
    }
}
