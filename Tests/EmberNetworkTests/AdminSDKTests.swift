import Foundation
import Testing

/// Firebase's Python Admin SDK (`firebase-admin` from PyPI, in a virtual environment under
/// `.build/`) against a real `ember serve`, in emulator mode (`FIREBASE_DATABASE_EMULATOR_HOST`),
/// as Firebase's own integration suite runs: `Scenarios/admin.py`.
@Suite(.serialized)
struct AdminSDKTests {
    /// The virtual environment's python, made (and `firebase-admin` installed) on first use.
    static let python: Result<String, ServeProcessError> = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let environment = root.appendingPathComponent(".build/admin-venv")
        let python = environment.appendingPathComponent("bin/python").path
        if run([python, "-c", "import firebase_admin"]).status == 0 { return .success(python) }
        let made = run(["python3", "-m", "venv", environment.path])
        guard made.status == 0 else { return .failure(ServeProcessError(message: "python3 -m venv failed: \(made.output)")) }
        let installed = run([python, "-m", "pip", "install", "--quiet", "firebase-admin"])
        guard installed.status == 0 else { return .failure(ServeProcessError(message: "pip install firebase-admin failed: \(installed.output)")) }
        return .success(python)
    }()

    /// Runs a command to its end, at most `timeout` seconds (then it is killed).
    static func run(
        _ arguments: [String], environment extra: [String: String] = [:], directory: URL? = nil, timeout: TimeInterval = 300
    ) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return (-1, "\(error)") }
        let text = LockedText()
        output.fileHandleForReading.readabilityHandler = { handle in text.append(handle.availableData) }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        text.append(output.fileHandleForReading.readDataToEndOfFile())
        return (process.terminationStatus, text.value)
    }

    @Test("reads, shallow reads, ETags, writes, push, multi-path updates, conditional writes, transactions, every query, listen, rules upload, auth_variable_override")
    func adminSDK() throws {
        let python = try Self.python.get()
        let server = try ServeProcess()
        let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scenarios")
        let result = Self.run(
            [python, "admin.py", String(server.port), "fake-project-id"],
            environment: ["FIREBASE_DATABASE_EMULATOR_HOST": "127.0.0.1:\(server.port)"], directory: scenarios)
        #expect(result.status == 0, "admin.py failed:\n\(result.output)\nserver log:\n\(server.log.suffix(3000))")
        #expect(result.output.contains("ok admin"), "\(result.output)")
    }
}
