import EmberCore
import EmberShell
import EmberTestSupport
import Foundation
import Testing

/// README's "Your first five minutes" is what the shell prints: the block is run, each line
/// typed at the prompt it shows, and every line of output compared (stderr as a terminal shows
/// it, among the rest). Issue 20: the block had drifted (a prompt, missing lines, an "after" the
/// shell does not print).
@Suite struct ReadmeTests {
    /// README.md at the root of the package.
    static var readme: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
    }

    /// The lines of the first fenced block after `heading`.
    static func block(after heading: String, in text: String) throws -> [String] {
        let lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: heading), "README has no '\(heading)'")
        let open = try #require(lines[start...].firstIndex { $0.hasPrefix("```") })
        let close = try #require(lines[(open + 1)...].firstIndex { $0.hasPrefix("```") })
        return Array(lines[(open + 1)..<close])
    }

    /// A typed line: `PROMPT> COMMAND`, where the prompt is `client:location` with the client's
    /// state when it is not connected (`main(offline):/`).
    static func input(_ line: String) -> (prompt: String, command: String)? {
        guard let marker = line.range(of: "> "), !line[..<marker.lowerBound].contains(" "),
            line[..<marker.lowerBound].contains(":")
        else { return nil }
        return (String(line[..<marker.upperBound]), String(line[marker.upperBound...]))
    }

    @Test func yourFirstFiveMinutesIsWhatTheShellPrints() throws {
        try check(block: "### Your first five minutes")
    }

    @Test func securityRulesInFiveCommandsIsWhatTheShellPrints() throws {
        try check(block: "### Security rules in five commands")
    }

    /// Runs the README block after `heading` and compares every line. `examples/` in a command
    /// is the package's examples directory (and is written back so in the output).
    func check(block heading: String) throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let block = try Self.block(after: heading, in: text)
        let examples = Self.readme.deletingLastPathComponent().appendingPathComponent("examples").path + "/"
        let (shell, output) = try makeTestShell()
        defer { shell.close() }

        var expected: [String] = []
        var actual: [String] = []
        for line in block {
            if let (prompt, command) = Self.input(line) {
                #expect(shell.prompt == prompt, "the prompt before '\(command)'")
                expected.append(line)
                actual.append(line)
                shell.execute(command.replacingOccurrences(of: "examples/", with: examples))
                let printed = output.take().replacingOccurrences(of: examples, with: "examples/")
                    .split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                // stderr shows on the terminal among the rest
                actual += printed.map { $0.hasPrefix("! ") ? String($0.dropFirst(2)) : String($0) }
            } else {
                expected.append(line)
            }
        }
        #expect(actual == expected, "README differs; what the shell prints:\n\(actual.joined(separator: "\n"))")
    }
}
