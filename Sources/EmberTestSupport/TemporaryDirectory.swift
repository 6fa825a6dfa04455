import Foundation

/// Fresh directories under the system's temporary directory, one per test, removed by the test
/// (`defer { TemporaryDirectory.remove(directory) }`).
public enum TemporaryDirectory {
    /// Makes a new, empty directory named `prefix-UUID` under the temporary directory.
    /// - Returns: its URL (`.path` for a path).
    public static func make(_ prefix: String = "ember-test") throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Removes `directory` and everything in it; a directory already gone is no error.
    public static func remove(_ directory: URL) {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Removes the directory at `path` and everything in it; a directory already gone is no error.
    public static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}
