import EmberCore
import EmberShell
import Foundation
import Testing

/// The Lua scripts in `examples/` run green: each checks what it observes with `assert` and
/// ends by printing "ok".
@Suite struct ExamplesTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("examples").path

    @Test(arguments: ["presence.lua", "dinosaurs.lua", "notes.lua", "clock.lua", "chat.lua", "plugin-example.lua", "rules.lua"])
    func example(_ name: String) throws {
        var options = ShellOptions(environment: [:])
        try options.setStorage(directory: nil, memory: true)
        options.loadsRCFile = false
        let output = CapturedOutput()
        let shell = try Shell(options: options, output: output)
        defer { shell.close() }
        let succeeded = shell.runFile(Self.directory + "/" + name)
        let lines = output.text.split(separator: "\n")
        #expect(succeeded, "\(name) failed:\n\(output.text)")
        #expect(lines.last == "ok", "\(name) did not end with ok:\n\(output.text)")
    }
}
