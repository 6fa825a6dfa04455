import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A program from Debian's packages that a test needs (Chromium for the browser tests), installed
/// by the test when it is missing: with `apt-get` as root (as the tests and CI run here), or
/// through `sudo -n`. Where neither can install it, the test fails saying so: it never passes
/// without the program.
public enum DebianPackage {
    /// `path`, installing `package` (after `apt-get update`) when it is not an executable there.
    /// - Returns: `path`, or why the package could not be installed.
    public static func ensure(_ package: String, provides path: String, timeout: TimeInterval = 900) -> Result<String, ChildProcess.Failure> {
        if FileManager.default.isExecutableFile(atPath: path) { return .success(path) }
        let missing = "\(path) is missing (Debian's package \(package))"
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/apt-get") else {
            return .failure(ChildProcess.Failure(message: "\(missing), and there is no apt-get here to install it: install it by hand"))
        }
        var prefix: [String] = []
        if getuid() != 0 {
            guard ChildProcess.run(["sudo", "-n", "true"], mergingErrors: true, timeout: 30).status == 0 else {
                return .failure(ChildProcess.Failure(
                    message: "\(missing): not root and no password-less sudo to run apt-get: run `sudo apt-get install -y \(package)`"))
            }
            prefix = ["sudo", "-n"]
        }
        // Waits for another apt or dpkg (a test of another suite, a person) instead of failing.
        let lock = ["-o", "DPkg::Lock::Timeout=300"]
        let updated = ChildProcess.run(prefix + ["apt-get"] + lock + ["update"], mergingErrors: true, timeout: timeout)
        guard updated.status == 0 else {
            return .failure(ChildProcess.Failure(message: "\(missing); apt-get update failed (\(updated.status)): \(updated.output.suffix(2000))"))
        }
        let installed = ChildProcess.run(
            prefix + ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get"] + lock + ["install", "-y", package], mergingErrors: true, timeout: timeout)
        guard installed.status == 0, FileManager.default.isExecutableFile(atPath: path) else {
            return .failure(ChildProcess.Failure(
                message: "\(missing); apt-get install -y \(package) failed (\(installed.status)): \(installed.output.suffix(2000))"))
        }
        return .success(path)
    }
}
