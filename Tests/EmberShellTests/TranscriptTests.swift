import Foundation
import Testing

/// Every transcript in `Transcripts/`: the shell's exact output for each command, pretty and
/// `--json`, errors included.
@Suite struct TranscriptTests {
    /// The transcripts, next to this file.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Transcripts")

    static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".transcript") }.sorted()
    }

    @Test(arguments: names)
    func transcript(_ name: String) throws {
        let transcript = try Transcript(url: Self.directory.appendingPathComponent(name))
        let run = try transcript.run()
        if ProcessInfo.processInfo.environment["EMBER_RECORD_TRANSCRIPTS"] == "1", run.actual != run.expected {
            try run.actual.write(to: Self.directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        #expect(run.actual == run.expected, "\(name): the output differs; actual transcript:\n\(run.actual)")
    }

    @Test func everyTranscriptIsFound() {
        #expect(Self.names.count >= 8)
    }
}
