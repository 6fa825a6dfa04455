import EmberCore
import EmberInstance
import EmberShell
import EmberTestSupport
import Foundation

/// A transcript: shell input lines and the exact output they must produce, run in a fresh
/// session on a virtual clock with seeded randomness, so every run is the same.
///
/// The format, one directive or line at a time:
/// - `> INPUT`: an entry typed into the shell; `>> INPUT` lines after it continue it (a multi-line
///   entry); an entry runs as it is, complete or not, when the next line is not `>>`;
/// - any other line: expected output, in order; error output is written with `! ` in front;
/// - `@options FLAGS`: the session's settings (`--json`, `--offline`, `--db`, `--durability M`,
///   `--rules FILE` for a file the transcript wrote), before the first input;
/// - `@restart`: closes the session and opens a new one on the same database directory;
/// - `@advance MS`: lets MS milliseconds of virtual time pass, delivering what falls due;
/// - `@file NAME` ... `@end`: writes a file into the transcript's directory (`$DIR` in input
///   and output stands for that directory);
/// - `##` starts a comment line.
///
/// With `EMBER_RECORD_TRANSCRIPTS=1` in the environment, the tests write the actual output back
/// into the files (review the diff before committing it).
struct Transcript {
    /// The file's name, for test names.
    let name: String
    /// The file's lines.
    let lines: [String]

    /// The outcome of running it: the actual transcript, to compare with the expected one.
    struct Run {
        let expected: String
        let actual: String
    }

    /// Loads the transcript at `url`.
    init(url: URL) throws {
        name = url.deletingPathExtension().lastPathComponent
        let text = try String(contentsOf: url, encoding: .utf8)
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        self.lines = lines
    }

    /// Runs the transcript and returns the expected and the actual text (without comments).
    func run() throws -> Run {
        // a path of fixed length, so that carets under it are the same on every machine
        let directory = "/tmp/ember-transcript-" + String(UUID().uuidString.prefix(8))
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        var options = ShellOptions(environment: [:])
        options.databaseDirectory = nil
        options.quiet = true
        let clock = ManualClock()
        let output = CapturedOutput()
        var shell: Shell?
        func session() throws -> Shell {
            if let shell { return shell }
            let opened = try Shell(options: options, output: output, clock: clock, random: SeededRandom(seed: 7))
            shell = opened
            return opened
        }
        var expected = ""
        var actual = ""
        var entry: String?
        var index = 0
        func expand(_ text: String) -> String { text.replacingOccurrences(of: "$DIR", with: directory) }
        func collapse(_ text: String) -> String { text.replacingOccurrences(of: directory, with: "$DIR") }

        while index < lines.count {
            let line = lines[index]
            index += 1
            if let pending = entry, !(line.hasPrefix(">> ") || line == ">>") {
                // the entry ended (a new one starts, its output follows, or a directive comes):
                // run it, complete or not, before anything else
                entry = nil
                try session().execute(pending)
                actual += collapse(output.take())
            }
            if line.hasPrefix("##") || line.hasPrefix("@options ") || line.hasPrefix("@file ") {
                // kept in both texts, so a recorded transcript keeps them
                expected += line + "\n"
                actual += line + "\n"
            }
            if line.hasPrefix("##") { continue }
            if line.hasPrefix("@options ") {
                var words = line.dropFirst(9).split(separator: " ").map(String.init)[...]
                while let word = words.popFirst() {
                    switch word {
                    case "--json": options.jsonOutput = true
                    case "--offline": options.startsOffline = true
                    case "--db": options.databaseDirectory = directory + "/db"
                    case "--rules": options.rulesFile = directory + "/" + (words.popFirst() ?? "")
                    case "--durability": options.durability = try ShellOptions.durability(named: words.popFirst() ?? "")
                    default: throw TranscriptError("\(name): unknown option \(word)")
                    }
                }
                continue
            }
            if line == "@restart" {
                shell?.close()
                shell = nil
                expected += line + "\n"
                actual += line + "\n"
                continue
            }
            if line.hasPrefix("@advance ") {
                try session().ember.advance(by: Int64(line.dropFirst(9)) ?? 0)
                expected += line + "\n"
                actual += line + "\n" + collapse(output.take())
                continue
            }
            if line.hasPrefix("@file ") {
                var content: [String] = []
                while index < lines.count, lines[index] != "@end" {
                    content.append(lines[index])
                    index += 1
                }
                index += 1
                let block = content.map { $0 + "\n" }.joined() + "@end\n"
                expected += block
                actual += block
                let path = directory + "/" + line.dropFirst(6)
                try (content.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
                continue
            }
            if line.hasPrefix(">> ") || line == ">>" {
                // the next line of a multi-line entry
                let input = line == ">>" ? "" : String(line.dropFirst(3))
                expected += line + "\n"
                actual += line + "\n"
                entry = (entry ?? "") + "\n" + expand(input)
                continue
            }
            if line.hasPrefix("> ") || line == ">" {
                let input = line == ">" ? "" : String(line.dropFirst(2))
                expected += line + "\n"
                actual += line + "\n"
                entry = expand(input)
                continue
            }
            expected += line + "\n"
        }
        if let pending = entry { try session().execute(pending) }
        shell?.close()
        actual += collapse(output.take())
        return Run(expected: expected, actual: actual)
    }
}

/// A transcript file is malformed.
struct TranscriptError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
