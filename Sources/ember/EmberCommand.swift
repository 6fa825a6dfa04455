import ArgumentParser
import EmberShell
import Foundation

/// The `ember` command line: parses the flags of SHELL.md and hands off to ``Shell``.
struct EmberCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ember",
        abstract: "An interactive shell over an embedded realtime JSON database, scriptable in Lua.",
        usage: """
            ember [<options>] [<SCRIPT.lua ARGS> ...]
              ember serve [<options>]
              ember help [<topic>]
            """,
        discussion: """
            `ember serve` serves the database to Firebase's SDKs, REST and other processes \
            (`ember serve --help`). `ember help [TOPIC]` prints the shell's help (its commands, \
            or one command or topic) without opening a database. Exit status: 0 success; 1 a \
            command or script failed (scripts stop at the first error); 2 usage error.
            """,
        version: Shell.version,
        // for --help and the completion scripts (main.swift runs it); ArgumentParser adds `help`
        subcommands: [ServeCommand.self]
    )

    @Option(
        name: [.customShort("c"), .customLong("command")],
        help: ArgumentHelp("Run one shell command; repeatable; then exit (unless -i).", valueName: "CMD"))
    var commands: [String] = []

    @Option(
        name: [.customShort("e"), .customLong("eval")],
        help: ArgumentHelp("Run a Lua chunk; repeatable; then exit (unless -i).", valueName: "LUA"))
    var luaChunks: [String] = []

    @Option(
        name: [.customShort("f"), .customLong("file")],
        help: ArgumentHelp("Run FILE: Lua if it ends in .lua, else shell commands line by line.", valueName: "FILE"),
        completion: .file())
    var file: String?

    @Flag(name: [.customShort("i"), .customLong("interactive")], help: "Stay in the REPL after -c/-e/-f/SCRIPT.")
    var interactive = false

    @Option(
        name: .customLong("db"),
        help: ArgumentHelp(
            "Database directory (server data + client caches); default $XDG_DATA_HOME/ember/default.",
            valueName: "DIR"),
        completion: .directory)
    var databaseDirectory: String?

    @Flag(name: .customLong("memory"), help: "Nothing on disk.")
    var memory = false

    @Option(
        name: .customLong("connect"),
        help: ArgumentHelp(
            "Connect the clients to a server in another process: ws://HOST:PORT/?ns=NAME (ember serve, the emulator) or https://NAME.firebaseio.com.",
            valueName: "URL"))
    var connectURL: String?

    @Option(
        name: .customLong("auth"),
        help: ArgumentHelp(
            "With --connect: sign every client in with TOKEN (a Firebase ID token; anything else, such as the emulator's owner, as an administrator).",
            valueName: "TOKEN"))
    var authToken: String?

    @Flag(name: .customLong("offline"), help: "Start every client offline (to read the cache after a restart).")
    var offline = false

    @Option(
        name: .customLong("durability"),
        help: ArgumentHelp("off | normal | full: when the server acknowledges a write.", valueName: "M"),
        completion: .list(ShellOptions.durabilityNames))
    var durability = ShellArguments.defaults.durability

    @Option(
        name: .customLong("cache-size"),
        help: ArgumentHelp(
            "How much of the database's stored data the server keeps in memory (e.g. 256MB; default 64MB, or $EMBER_CACHE_SIZE); past it, what no listener holds is evicted, least recently used first.",
            valueName: "SIZE"))
    var cacheSize: String?

    @Option(
        name: .customLong("rules"),
        help: ArgumentHelp(
            "Security rules to put in force (JSON with comments; kept with the database directory).", valueName: "FILE"),
        completion: .file(extensions: ["json"]))
    var rulesFile: String?

    @Flag(name: .customLong("json"), help: "Machine output: one JSON document per result, errors as JSON on stderr.")
    var json = false

    @Flag(name: .customLong("no-color"), help: "No colour (also: NO_COLOR, and output that is not a terminal).")
    var noColor = false

    @Flag(name: .customLong("no-rc"), help: "Skip ~/.config/ember/init.lua.")
    var noRC = false

    @Option(
        name: .customLong("plugins"),
        help: ArgumentHelp("Load every *.lua in DIR as a plugin (after ~/.config/ember/plugins).", valueName: "DIR"),
        completion: .directory)
    var pluginDirectory: String?

    @Flag(name: .customLong("unsafe-lua"), help: "Give scripts io/os/require (off by default).")
    var unsafeLua = false

    // .unconditional: a negative number is a value to refuse with a message, not an option
    @Option(
        name: .customLong("lua-instructions"), parsing: .unconditional,
        help: ArgumentHelp(
            "Stop a script that runs N VM instructions without waiting (0: no limit).", valueName: "N"))
    var luaInstructions = ShellArguments.defaults.luaInstructions

    @Option(
        name: .customLong("lua-memory"), parsing: .unconditional,
        help: ArgumentHelp("How much memory Lua may use, in MiB (0: no limit).", valueName: "MIB"))
    var luaMemory = ShellArguments.defaults.luaMemory

    @Option(
        name: .customLong("ack-timeout"), parsing: .unconditional,
        help: ArgumentHelp(
            "In scripts, how long a write waits for the server's acknowledgement, in seconds (0: no limit); then the script fails, saying where the write is kept.",
            valueName: "SECONDS"))
    var ackTimeout = ShellArguments.defaults.ackTimeout

    @Flag(name: [.customShort("q"), .customLong("quiet")], help: "No banner.")
    var quiet = false

    @Argument(
        parsing: .captureForPassthrough,
        help: ArgumentHelp("A Lua script to run, then the arguments it receives.", valueName: "SCRIPT.lua ARGS"),
        completion: .file(extensions: ["lua"]))
    var scriptAndArguments: [String] = []

    /// The values parsed, as the shell reads them.
    var arguments: ShellArguments {
        var values = ShellArguments()
        values.commands = commands
        values.luaChunks = luaChunks
        values.file = file
        values.interactive = interactive
        values.databaseDirectory = databaseDirectory
        values.memory = memory
        values.connectURL = connectURL
        values.authToken = authToken
        values.offline = offline
        values.durability = durability
        values.cacheSize = cacheSize
        values.rulesFile = rulesFile
        values.json = json
        values.noColor = noColor
        values.noRC = noRC
        values.pluginDirectory = pluginDirectory
        values.unsafeLua = unsafeLua
        values.luaInstructions = luaInstructions
        values.luaMemory = luaMemory
        values.ackTimeout = ackTimeout
        values.quiet = quiet
        values.scriptAndArguments = scriptAndArguments
        values.commandLine = Array(CommandLine.arguments.dropFirst())
        return values
    }

    /// The options for the shell, or a usage error.
    func shellOptions() throws(ShellUsageError) -> ShellOptions {
        try arguments.shellOptions(environment: ProcessInfo.processInfo.environment)
    }

    func validate() throws {
        // captureForPassthrough takes ArgumentParser's own flags before the parser sees them,
        // when they come after every ember option
        switch scriptAndArguments.first {
        case "--version": throw CleanExit.message(Shell.version)
        case "-h", "--help": throw CleanExit.helpRequest(self)
        default: break
        }
        do {
            _ = try shellOptions()
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() throws {
        let status = ShellSession.run(options: try shellOptions())
        if status != 0 { throw ExitCode(status) }
    }

    /// Parses `arguments` and runs the shell; returns the exit status: 0, 1 when the session
    /// failed, 2 for a usage error (the message and usage go to stderr). `--help` and
    /// `--version` print to stdout and return 0.
    static func exitStatus(running arguments: [String], as command: any ParsableCommand.Type = EmberCommand.self) -> Int32 {
        do {
            var parsed = try command.parseAsRoot(arguments)
            try parsed.run()
            return 0
        } catch {
            let code = command.exitCode(for: error)
            let message = command.fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                return 0
            }
            if let exit = error as? ExitCode {
                return exit.rawValue
            }
            FileHandle.standardError.write(Data((message + "\n").utf8))
            return 2
        }
    }
}
