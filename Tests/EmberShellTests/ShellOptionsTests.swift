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

    /// `-e A -c B -e C` runs A, B, C: the parser collects each option's values apart, and the
    /// order comes back from the arguments.
    @Test func commandsAndChunksRunInTheOrderGiven() {
        let arguments = ["-e", "A", "--memory", "-c", "B", "--eval=C", "--db", "-x", "--command", "-e"]
        #expect(
            ShellOptions.inputs(arguments: arguments, commands: ["B", "-e"], luaChunks: ["A", "C"])
                == [.lua("A"), .command("B"), .lua("C"), .command("-e")])
        // A script's own arguments that look like options: the counts differ, commands first.
        #expect(
            ShellOptions.inputs(arguments: ["-e", "A", "-c", "B", "script.lua", "-c", "x"], commands: ["B"], luaChunks: ["A"])
                == [.command("B"), .lua("A")])
        #expect(ShellOptions.inputs(arguments: ["-c", "B", "--", "-e", "x"], commands: ["B"], luaChunks: []) == [.command("B")])
    }

    @Test func batchOnlyUnlessInteractive() {
        var options = ShellOptions(environment: [:])
        options.inputs = [.command("get /")]
        #expect(options.runsBatchOnly)
        options.staysInteractive = true
        #expect(!options.runsBatchOnly)
    }
}
