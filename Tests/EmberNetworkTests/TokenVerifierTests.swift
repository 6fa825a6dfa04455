import EmberTestSupport
import Foundation
import Testing

/// `ember serve --project`: signed Firebase ID tokens verified as Firebase's servers do, with
/// keys from a file in Google's certificate format and from a URL serving a JSON Web Key Set
/// (`Scenarios/tokens.py` makes the key and the tokens, in the Admin SDK's virtual environment).
@Suite(.serialized)
struct TokenVerifierTests {
    static let rules = #"{"rules": {"users": {"$uid": {".read": "auth.uid === $uid", ".write": "auth.uid === $uid"}}}}"#

    @Test("signed ID tokens: good ones sign in as their user; unsigned, forged, foreign, unknown-key, expired and future ones are refused (realtime and REST)", arguments: ["file", "url"])
    func signedTokens(_ source: String) throws {
        let python = try AdminSDKTests.python.get()
        let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scenarios")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ember-tokens-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = ChildProcess.run([python, "tokens.py", "keys", directory.path], directory: scenarios, mergingErrors: true, timeout: 60)
        try #require(made.status == 0, "tokens.py keys: \(made.output)")
        let rules = directory.appendingPathComponent("rules.json")
        try Self.rules.write(to: rules, atomically: true, encoding: .utf8)
        var keys = directory.appendingPathComponent("certs.json").path
        var web: ChildProcess?
        if source == "url" {
            let port = try Self.freePort()
            web = try ChildProcess.start(
                ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", directory.path], mergingErrors: true)
            keys = "http://127.0.0.1:\(port)/jwks.json"
            // Until it listens.
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, !Self.listens(port) { usleep(50_000) }
        }
        defer {
            if let web {
                web.send(SIGKILL)
                web.waitForExit(timeout: 10)
            }
        }
        let server = try ServeProcess(["--project", "demo-ember", "--certs", keys, "--rules", rules.path, "--ns", "tokens"])
        defer { server.stop() }
        let result = ChildProcess.run([python, "tokens.py", "check", String(server.port), directory.path], directory: scenarios, mergingErrors: true, timeout: 120)
        #expect(result.status == 0, "tokens.py check (\(source)) failed:\n\(result.output)\nserver log:\n\(server.log.suffix(3000))")
        #expect(result.output.contains("ok tokens"), "\(result.output)")
    }

    /// `tokens.py SCENARIO` against a server with `--project` and keys from a URL whose
    /// answers come 1.5 s late (`tokens.py certserver`, which logs each fetch).
    static func slowKeysScenario(_ scenario: String, arguments: [String] = []) throws {
        let python = try AdminSDKTests.python.get()
        let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scenarios")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ember-tokens-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = ChildProcess.run([python, "tokens.py", "keys", directory.path], directory: scenarios, mergingErrors: true, timeout: 60)
        try #require(made.status == 0, "tokens.py keys: \(made.output)")
        let port = try freePort()
        let web = try ChildProcess.start([python, "tokens.py", "certserver", directory.path, String(port)], directory: scenarios, mergingErrors: true)
        defer {
            web.send(SIGKILL)
            web.finish()
        }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !listens(port) { usleep(50_000) }
        // Probing the port is no fetch; the log starts empty.
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("fetches.log"))
        let server = try ServeProcess(["--project", "demo-ember", "--certs", "http://127.0.0.1:\(port)/jwks.json"] + arguments)
        defer { server.stop() }
        let result = ChildProcess.run([python, "tokens.py", scenario, String(server.port), directory.path], directory: scenarios, mergingErrors: true, timeout: 120)
        #expect(result.status == 0, "tokens.py \(scenario) failed:\n\(result.output)\nserver log:\n\(server.log.suffix(3000))")
        #expect(result.output.contains("ok \(scenario)"), "\(result.output)")
    }

    @Test("40 sign-ins at once with unknown kids make one fetch of the keys; the others wait for it")
    func oneFetchAtATime() throws {
        try Self.slowKeysScenario("herd")
    }

    @Test("messages held behind a fetch of the keys are bounded by --max-unsent: past it the connection is cut")
    func heldMessagesBounded() throws {
        try Self.slowKeysScenario("held", arguments: ["--max-unsent", "1000000"])
    }

    @Test("--project and --admin-token check their arguments: --certs alone, a bad project id, a keys file that is not one, a weak secret")
    func badArguments() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ember-tokens-bad-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let junk = directory.appendingPathComponent("junk.json")
        try #"{"key-1": "not a certificate"}"#.write(to: junk, atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["--certs", junk.path], "--certs needs --project"),
            (["--project", "no spaces"], "--project takes a Firebase project id"),
            (["--project", "demo", "--certs", directory.appendingPathComponent("missing.json").path], "cannot read the keys file"),
            (["--project", "demo", "--certs", junk.path], "not an RSA public key"),
            (["--admin-token", "short"], "it has 5 characters; at least 16 are needed"),
            (["--admin-token", "owner"], "it is the emulator's `owner`"),
            (["--admin-token", "sixteen chars or more"], "it contains a space"),
        ]
        for (arguments, expected) in cases {
            let result = ChildProcess.run([ServeProcess.executable.path, "serve", "--memory", "--port", "0"] + arguments, mergingErrors: true, timeout: 30)
            #expect(result.status != 0, "\(arguments): \(result.output)")
            #expect(result.output.contains(expected), "\(arguments): \(result.output)")
        }
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func listens(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// A port nothing listens on now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw ChildProcess.Failure(message: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
