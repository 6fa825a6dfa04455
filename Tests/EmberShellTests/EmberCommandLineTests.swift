import Foundation
import Testing

/// The `ember` executable, run as a user would: parsing, hand-off to the shell, exit statuses.
///
/// `swift test` builds every product, so the binary sits next to the test executable.
@Suite struct EmberCommandLineTests {
    /// The built `ember`, next to the test executable.
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0])
        .deletingLastPathComponent().appendingPathComponent("ember")

    /// Runs `ember` with `arguments`; returns its status, stdout and stderr.
    private func ember(_ arguments: String...) throws -> (status: Int32, output: String, error: String) {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.executable.path),
            "ember is not built at \(Self.executable.path)")
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = "/home/ada"
        environment["XDG_DATA_HOME"] = nil
        process.environment = environment
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    @Test
    func handsParsedSettingsToTheShell() throws {
        let result = try ember("-q", "--memory", "--durability", "full", "-c", "get /", "-e", "print(1)", "seed.lua", "-n", "5")
        #expect(result.status == 0)
        #expect(result.error == "")
        #expect(result.output.hasPrefix("ember 0.1.0-dev: the shell is not built yet (issue 6)."))
        #expect(result.output.contains("  database:        in memory (--memory)\n"))
        #expect(result.output.contains("  durability:      full\n"))
        #expect(result.output.contains(#"  script:          seed.lua with arguments "-n", "5""# + "\n"))
        #expect(result.output.contains("  banner:          off (-q)\n"))
    }

    @Test
    func usageErrorsExitWithTwo() throws {
        let conflicting = try ember("--db", "/tmp/x", "--memory")
        #expect(conflicting.status == 2)
        #expect(conflicting.output == "")
        #expect(conflicting.error.hasPrefix("Error: --db and --memory cannot be used together\nUsage: ember"))

        let unknown = try ember("--bogus")
        #expect(unknown.status == 2)
        #expect(unknown.error.hasPrefix("Error: unknown option '--bogus'"))

        let badDurability = try ember("--durability", "fast")
        #expect(badDurability.status == 2)
        #expect(badDurability.error.hasPrefix(#"Error: invalid durability "fast": expected off, normal or full"#))

        let missingValue = try ember("-c")
        #expect(missingValue.status == 2)
    }

    @Test
    func versionAndHelpExitWithZero() throws {
        let version = try ember("--version")
        #expect(version.status == 0)
        #expect(version.output == "0.1.0-dev\n")

        let help = try ember("--help")
        #expect(help.status == 0)
        #expect(help.output.contains("USAGE: ember [<options>] [<SCRIPT.lua ARGS> ...]"))
        #expect(help.output.contains("--durability <M>"))

        // after the script, flags belong to the script
        let scripted = try ember("--memory", "run.lua", "--help")
        #expect(scripted.status == 0)
        #expect(scripted.output.contains(#"run.lua with arguments "--help""#))
    }
}
