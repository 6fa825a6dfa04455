import EmberCore
import EmberSync
import Foundation

/// Runs SyncPoint spec cases against ``SyncTree`` the way the JS and iOS SDK runners do
/// (`sync-spec-runner.md` §2.6, §3.3, §3.4).
///
/// Each run uses a fresh sync tree with a ``RecordingListenProvider``, numbers user writes 0, 1,
/// 2, ... in step order (hidden sets included), creates one listener per listen step (reusing it
/// when `callbackId` names an earlier one), joins every step and expected event path onto the
/// base path, and checks listen and unlisten steps with
/// ``SyncPointSpecMatcher/exactMatch(expected:actual:)``, every other step with
/// ``SyncPointSpecMatcher/setMatch(expected:actual:basePath:)``. Listen-provider violations
/// fail the step that caused them.
public enum SyncPointSpecRunner {
    /// How the runner treats query tags.
    public enum TagPolicy: Sendable, Hashable {
        /// As the SDK runners: tagged server data carries the fixture's tag unchanged, and each
        /// listen on a filtered query checks that the sync tree gave the query exactly the tag
        /// the fixture expects (1, 2, 3, ... in order of view creation).
        case fixtureNumbering
        /// Fixture tags are translated to the tag the sync tree reports for the listened query
        /// (``SyncTree/tag(for:)``); the numbering itself is not checked.
        case mapped
    }

    /// Runs `testCase` with every path under `basePath`, stopping at the first failing step.
    public static func run(
        _ testCase: SyncPointSpecCase, basePath: Path, tags: TagPolicy = .fixtureNumbering
    ) -> SyncPointSpecResult {
        var run = SyncPointSpecRun(caseName: testCase.name, basePath: basePath, tags: tags)
        for (index, step) in testCase.steps.enumerated() {
            if let failure = run.perform(step, at: index) { return .failed(failure) }
        }
        return .passed
    }

    /// Reads the cases of the spec file at `url`.
    /// - Throws: ``SyncPointSpecError`` when the file cannot be read, is not JSON, or holds
    ///   anything the runner does not know (unknown step types, event types or members).
    public static func loadCases(from url: URL) throws -> [SyncPointSpecCase] {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw SyncPointSpecError("cannot read the SyncPoint spec at \(url.path): \(error.localizedDescription)")
        }
        return try decodeCases(text)
    }

    /// Reads the cases of the spec file at `path`.
    /// - Throws: ``SyncPointSpecError``, as ``loadCases(from:)``.
    public static func loadCases(fromPath path: String) throws -> [SyncPointSpecCase] {
        try loadCases(from: URL(fileURLWithPath: path))
    }

    /// Reads the cases of the fixture found by ``SyncPointSpec/fixturePath(environment:filePath:)``.
    /// - Throws: ``SyncPointSpecError`` saying where the file was looked for, or what is wrong in it.
    public static func loadCases(
        environment: [String: String] = ProcessInfo.processInfo.environment, filePath: String = #filePath
    ) throws -> [SyncPointSpecCase] {
        try loadCases(fromPath: try SyncPointSpec.fixturePath(environment: environment, filePath: filePath))
    }

    /// Decodes the cases of spec file text.
    /// - Throws: ``SyncPointSpecError`` for malformed JSON or an unknown step, event or member.
    public static func decodeCases(_ text: String) throws -> [SyncPointSpecCase] {
        let json: JSONValue
        do {
            json = try JSONParser.parse(text)
        } catch {
            throw SyncPointSpecError("the SyncPoint spec is not valid JSON: \(error)")
        }
        return try SyncPointSpecDecoder.cases(json)
    }
}
