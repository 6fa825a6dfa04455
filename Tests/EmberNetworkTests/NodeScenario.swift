import EmberTestSupport
import Foundation
import Testing

/// Runs the official Firebase Web SDK (from `../shared/conformance/firebase-js-sdk`, under
/// Node 20) on the scenarios of `Scenarios/websdk.mjs`.
enum NodeScenario {
    /// A directory holding the SDK as ES modules next to the scenarios, made once per run.
    static let directory: Result<URL, ChildProcess.Failure> = {
        do {
            let conformance = URL(fileURLWithPath: try SyncPointSpec.fixturePath()).deletingLastPathComponent()
            let sdk = conformance.appendingPathComponent("firebase-js-sdk")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ember-websdk-\(getpid())")
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: sdk.appendingPathComponent("firebase-app.js"), to: directory.appendingPathComponent("firebase-app.mjs"))
            let database = try String(contentsOf: sdk.appendingPathComponent("firebase-database.js"), encoding: .utf8)
                .replacingOccurrences(of: "https://www.gstatic.com/firebasejs/9.8.1/firebase-app.js", with: "./firebase-app.mjs")
            try database.write(to: directory.appendingPathComponent("firebase-database.mjs"), atomically: true, encoding: .utf8)
            let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scenarios")
            for name in try FileManager.default.contentsOfDirectory(atPath: scenarios.path) {
                try FileManager.default.copyItem(at: scenarios.appendingPathComponent(name), to: directory.appendingPathComponent(name))
            }
            return .success(directory)
        } catch {
            return .failure(ChildProcess.Failure(message: "cannot prepare the Web SDK: \(error)"))
        }
    }()

    /// The command line of `node` running `script` with `arguments`.
    static func command(_ script: String, _ arguments: [String]) -> [String] {
        ["node", "--experimental-websocket", "--no-warnings", script] + arguments
    }

    /// Starts `script` in the SDK's directory; its output and errors are read as one text.
    static func start(_ script: String, _ arguments: [String]) throws -> ChildProcess {
        try ChildProcess.start(command(script, arguments), directory: try directory.get(), mergingErrors: true)
    }

    /// Runs `script` to its end (at most `timeout` seconds); returns its status and output.
    static func run(_ script: String, _ arguments: [String], timeout: TimeInterval = 90) throws -> ChildProcess.Result {
        ChildProcess.run(command(script, arguments), directory: try directory.get(), mergingErrors: true, timeout: timeout)
    }

    /// Runs one scenario of `websdk.mjs` against `server` in namespace `namespace`, and expects
    /// it to pass.
    static func expectPass(_ scenario: String, on server: ServeProcess, namespace: String? = nil, arguments: [String] = []) throws {
        let result = try run("websdk.mjs", [String(server.port), namespace ?? scenario.lowercased(), scenario] + arguments)
        #expect(result.status == 0, "scenario \(scenario) failed:\n\(result.output)\nserver log:\n\(server.log.suffix(3000))")
        #expect(result.output.contains("ok \(scenario)"), "\(result.output)")
    }
}
