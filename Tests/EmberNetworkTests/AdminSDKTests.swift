import EmberTestSupport
import Foundation
import Testing

/// Firebase's Python Admin SDK (`firebase-admin` from PyPI, in a virtual environment under
/// `.build/`) against a real `ember serve`, in emulator mode (`FIREBASE_DATABASE_EMULATOR_HOST`),
/// as Firebase's own integration suite runs: `Scenarios/admin.py`.
@Suite(.serialized)
struct AdminSDKTests {
    /// The virtual environment's python, made (and `firebase-admin` installed) on first use.
    static let python: Result<String, ChildProcess.Failure> = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let environment = root.appendingPathComponent(".build/admin-venv")
        let python = environment.appendingPathComponent("bin/python").path
        if ChildProcess.run([python, "-c", "import firebase_admin"], mergingErrors: true).status == 0 { return .success(python) }
        let made = ChildProcess.run(["python3", "-m", "venv", environment.path], mergingErrors: true)
        guard made.status == 0 else { return .failure(ChildProcess.Failure(message: "python3 -m venv failed: \(made.output)")) }
        let installed = ChildProcess.run([python, "-m", "pip", "install", "--quiet", "firebase-admin"], mergingErrors: true)
        guard installed.status == 0 else { return .failure(ChildProcess.Failure(message: "pip install firebase-admin failed: \(installed.output)")) }
        return .success(python)
    }()

    @Test("reads, shallow reads, ETags, writes, push, multi-path updates, conditional writes, transactions, every query, listen, rules upload, auth_variable_override")
    func adminSDK() throws {
        let python = try Self.python.get()
        let server = try ServeProcess()
        let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scenarios")
        let result = ChildProcess.run(
            [python, "admin.py", String(server.port), "fake-project-id"],
            environment: ["FIREBASE_DATABASE_EMULATOR_HOST": "127.0.0.1:\(server.port)"], directory: scenarios, mergingErrors: true)
        #expect(result.status == 0, "admin.py failed:\n\(result.output)\nserver log:\n\(server.log.suffix(3000))")
        #expect(result.output.contains("ok admin"), "\(result.output)")
    }
}
