import EmberCore
import Foundation

/// Where the Firebase SDKs' shared SyncPoint spec lives, and the conventions Ember runs it with.
///
/// The fixture (`syncPointSpec.json`, the firebase-js-sdk copy with 112 cases) is read at test
/// time, from the directory named by `EMBER_CONFORMANCE_DIR` or else from
/// `../shared/conformance/` beside the package; it is never copied into the project. See
/// `../shared/reference/sync-spec-runner.md` for the format and the SDK runners' semantics.
public enum SyncPointSpec {
    /// The fixture's file name.
    public static let fileName = "syncPointSpec.json"

    /// The number of cases in the firebase-js-sdk copy (the other SDKs' copies have 108: they
    /// lack the four startAfter/endBefore cases).
    public static let expectedCaseCount = 112

    /// The environment variable that names a directory holding the fixture.
    public static let directoryVariable = "EMBER_CONFORMANCE_DIR"

    /// The second base path every case runs under, as in the SDK runners.
    public static let nestedBasePath = Path(unchecked: "foo/bar/baz")

    /// The base paths every case runs under, in order: the root, then `foo/bar/baz`.
    public static let basePaths: [Path] = [.root, nestedBasePath]

    /// The fixture's location.
    ///
    /// `EMBER_CONFORMANCE_DIR` wins when set (a directory holding `syncPointSpec.json`, or the
    /// file itself); otherwise the search walks up from `filePath` to the package root (the
    /// nearest directory with a `Package.swift`) and uses `../shared/conformance/` from there.
    /// - Throws: ``SyncPointSpecError`` saying where the file was looked for.
    public static func fixturePath(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        filePath: String = #filePath
    ) throws -> String {
        if let directory = environment[directoryVariable], !directory.isEmpty {
            let candidate = directory.hasSuffix(".json") ? directory : directory + "/" + fileName
            guard FileManager.default.fileExists(atPath: candidate) else {
                throw SyncPointSpecError("\(directoryVariable) is \(directory), but \(candidate) does not exist")
            }
            return candidate
        }
        guard let root = packageRoot(above: filePath) else {
            throw SyncPointSpecError(
                "no directory with a Package.swift above \(filePath); set \(directoryVariable) to the directory that holds \(fileName)"
            )
        }
        let candidate = parentDirectory(of: root) + "/shared/conformance/" + fileName
        guard FileManager.default.fileExists(atPath: candidate) else {
            throw SyncPointSpecError(
                "the SyncPoint spec is not at \(candidate) (../shared/conformance/ beside the package root \(root)); set \(directoryVariable) to the directory that holds \(fileName)"
            )
        }
        return candidate
    }

    /// A path written the way the fixtures write it: keys joined by `/`, the root as `""`.
    public static func spelled(_ path: Path) -> String {
        path.keys.map(\.name).joined(separator: "/")
    }

    /// The nearest directory at or above the directory of `filePath` that holds a `Package.swift`.
    static func packageRoot(above filePath: String) -> String? {
        var components = filePath.split(separator: "/").map(String.init)
        guard !components.isEmpty else { return nil }
        components.removeLast()
        while !components.isEmpty {
            let directory = "/" + components.joined(separator: "/")
            if FileManager.default.fileExists(atPath: directory + "/Package.swift") { return directory }
            components.removeLast()
        }
        return nil
    }

    /// The directory above `directory` (an absolute path), or `/` at the top.
    static func parentDirectory(of directory: String) -> String {
        let components = directory.split(separator: "/").dropLast()
        return "/" + components.joined(separator: "/")
    }
}
