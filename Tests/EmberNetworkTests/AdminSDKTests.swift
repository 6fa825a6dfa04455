import EmberTestSupport
import Foundation
import Testing

/// Firebase's Python Admin SDK (`firebase-admin` from PyPI, in a virtual environment under
/// `.build/`) against a real `ember serve`, in emulator mode (`FIREBASE_DATABASE_EMULATOR_HOST`),
/// as Firebase's own integration suite runs: `Scenarios/admin.py`.
@Suite(.serialized)
struct AdminSDKTests {
    /// The virtual environment's python, made (and `firebase-admin` installed) on first use.
    static let python = PythonEnvironment.prepare("admin-venv", packages: ["firebase-admin"], check: "import firebase_admin")

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
