import Foundation

/// Python virtual environments under the package's `.build/`, for tests that drive a client from
/// PyPI (the Admin SDK, Playwright): made, and the packages installed with pip, on first use;
/// reused as they are while a check still passes in them.
public enum PythonEnvironment {
    /// The package's root directory (this file is `Sources/EmberTestSupport/PythonEnvironment.swift`).
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The python of `.build/NAME`: when `check` (Python source, such as `import firebase_admin`)
    /// fails there, the environment is made with `python3 -m venv` and `packages` are installed
    /// from PyPI (at most `timeout` seconds).
    /// - Returns: the python's path, or why it could not be had.
    public static func prepare(_ name: String, packages: [String], check: String, timeout: TimeInterval = 600)
        -> Result<String, ChildProcess.Failure>
    {
        let environment = packageRoot.appendingPathComponent(".build/\(name)")
        let python = environment.appendingPathComponent("bin/python").path
        if ChildProcess.run([python, "-c", check], mergingErrors: true, timeout: 60).status == 0 { return .success(python) }
        let made = ChildProcess.run(["python3", "-m", "venv", environment.path], mergingErrors: true, timeout: 120)
        guard made.status == 0 else {
            return .failure(ChildProcess.Failure(message: "python3 -m venv \(environment.path) failed: \(made.output)"))
        }
        let installed = ChildProcess.run(
            [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"] + packages, mergingErrors: true, timeout: timeout)
        guard installed.status == 0 else {
            return .failure(ChildProcess.Failure(message: "pip install \(packages.joined(separator: " ")) failed: \(installed.output)"))
        }
        let checked = ChildProcess.run([python, "-c", check], mergingErrors: true, timeout: 60)
        guard checked.status == 0 else {
            return .failure(ChildProcess.Failure(message: "\(check) fails after pip install \(packages.joined(separator: " ")): \(checked.output)"))
        }
        return .success(python)
    }
}
