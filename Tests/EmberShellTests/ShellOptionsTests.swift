import EmberShell
import Testing

/// The rules that relate the command-line settings.
@Suite struct ShellOptionsTests {
    @Test func defaultsFollowTheDesign() {
        let options = ShellOptions(environment: ["HOME": "/home/ada"])
        #expect(options.databaseDirectory == "/home/ada/.local/share/ember/default")
        #expect("\(options.durability)" == "normal")
        #expect(options.loadsRCFile)
        #expect(!options.unsafeLua)
        #expect(!options.runsBatchOnly)
    }

    @Test func defaultDirectoryHonoursAnAbsoluteXDGDataHome() {
        #expect(ShellOptions.defaultDatabaseDirectory(environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/ada"])
            == "/data/ember/default")
        // relative or empty values are invalid under the XDG rules and ignored
        #expect(ShellOptions.defaultDatabaseDirectory(environment: ["XDG_DATA_HOME": "data", "HOME": "/home/ada"])
            == "/home/ada/.local/share/ember/default")
        #expect(ShellOptions.defaultDatabaseDirectory(environment: ["XDG_DATA_HOME": "", "HOME": "/home/ada"])
            == "/home/ada/.local/share/ember/default")
    }

    @Test func durabilityNames() throws {
        #expect(ShellOptions.durabilityNames == ["off", "normal", "full"])
        #expect("\(try ShellOptions.durability(named: "full"))" == "full")
        let error = try #require(throws: ShellUsageError.self) { try ShellOptions.durability(named: "fast") }
        #expect(error.message == #"invalid durability "fast": expected off, normal or full"#)
    }

    @Test func storageIsADirectoryOrMemoryNotBoth() throws {
        var options = ShellOptions(environment: ["HOME": "/home/ada"])
        try options.setStorage(directory: "/srv/ember", memory: false)
        #expect(options.databaseDirectory == "/srv/ember")
        try options.setStorage(directory: nil, memory: true)
        #expect(options.databaseDirectory == nil)
        let error = try #require(throws: ShellUsageError.self) {
            try options.setStorage(directory: "/srv/ember", memory: true)
        }
        #expect(error.message == "--db and --memory cannot be used together")
    }

    @Test func colorNeedsATerminalAndNoOptOut() {
        var options = ShellOptions(environment: [:])
        #expect(options.usesColor(environment: [:], outputIsTerminal: true))
        #expect(!options.usesColor(environment: [:], outputIsTerminal: false))
        #expect(!options.usesColor(environment: ["NO_COLOR": "1"], outputIsTerminal: true))
        #expect(options.usesColor(environment: ["NO_COLOR": ""], outputIsTerminal: true))
        options.colorDisabled = true
        #expect(!options.usesColor(environment: [:], outputIsTerminal: true))
    }

    @Test func batchOnlyUnlessInteractive() {
        var options = ShellOptions(environment: [:])
        options.commands = ["get /"]
        #expect(options.runsBatchOnly)
        options.staysInteractive = true
        #expect(!options.runsBatchOnly)
    }

    @Test func reportSaysTheShellIsNotBuiltAndShowsTheSettings() {
        var options = ShellOptions(environment: ["HOME": "/home/ada"])
        options.commands = ["get /users", "ls /"]
        options.script = "seed.lua"
        options.scriptArguments = ["100"]
        let report = Shell(options: options).report(environment: ["HOME": "/home/ada"], outputIsTerminal: false)
        let lines = report.split(separator: "\n").map(String.init)
        #expect(lines.first == "ember \(Shell.version): the shell is not built yet (issue 6). Parsed settings:")
        #expect(lines.contains("  database:        /home/ada/.local/share/ember/default"))
        #expect(lines.contains(#"  commands (-c):   "get /users", "ls /""#))
        #expect(lines.contains(#"  script:          seed.lua with arguments "100""#))
        #expect(lines.contains("  then:            exit"))
        #expect(lines.contains("  rc file:         /home/ada/.config/ember/init.lua"))
    }
}
