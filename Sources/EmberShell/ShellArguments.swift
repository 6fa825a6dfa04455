import Foundation

/// The `ember` command line's values, as plain fields: what the argument parser of the `ember`
/// command fills, or ``init(commonForm:)`` without it, and what becomes the shell's
/// ``ShellOptions``.
///
/// The common invocations (`ember --memory -c 'get /'`, `ember --db DIR -f FILE`) are read by
/// ``init(commonForm:)``, a plain scan; anything else (a script, `--help`, `--opt=value`,
/// numeric options, a value that begins with `-`, an option given twice, an unknown word)
/// goes to swift-argument-parser, which builds its whole model of the command by reflection
/// first: 42% of the instructions of `ember --memory -c 'get /'` (callgrind), twice over with
/// its check for a completion-script request. The two give the same options for every form
/// the scan accepts (`ShellArgumentsTests`).
public struct ShellArguments: Sendable, Hashable {
    public var commands: [String] = []
    public var luaChunks: [String] = []
    public var file: String?
    public var interactive = false
    public var databaseDirectory: String?
    public var memory = false
    public var connectURL: String?
    public var authToken: String?
    public var offline = false
    public var durability = "normal"
    public var cacheSize: String?
    public var rulesFile: String?
    public var json = false
    public var noColor = false
    public var noRC = false
    public var pluginDirectory: String?
    public var unsafeLua = false
    public var luaInstructions = 1_000_000_000
    public var luaMemory = 512
    public var ackTimeout = 30
    public var quiet = false
    /// A Lua script and its arguments (`--` first when given).
    public var scriptAndArguments: [String] = []
    /// The whole command line after the program's name, for the order of `-c` and `-e`.
    public var commandLine: [String] = []

    /// Values with every default.
    public init() {}

    /// Every default: the `ember` command's parser takes its defaults from here, so that the
    /// two readings of a command line cannot drift apart.
    public static let defaults = ShellArguments()

    /// Reads the common forms of the command line: the flags, and the options that take one
    /// value which does not begin with `-` (`-c`, `-e` repeatable, the others once). `nil` for
    /// anything else, which the full parser reads (and reports, when it is wrong).
    /// - Complexity: O(n) in the number of arguments.
    public init?(commonForm arguments: [String]) {
        commandLine = arguments
        var given: Set<String> = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            let flag: WritableKeyPath<ShellArguments, Bool>? =
                switch argument {
                case "--memory": \.memory
                case "--json": \.json
                case "--no-color": \.noColor
                case "--no-rc": \.noRC
                case "--offline": \.offline
                case "--unsafe-lua": \.unsafeLua
                case "-q", "--quiet": \.quiet
                case "-i", "--interactive": \.interactive
                default: nil
                }
            if let flag {
                guard given.insert(argument).inserted else { return nil }
                self[keyPath: flag] = true
                continue
            }
            guard index < arguments.endIndex, !arguments[index].hasPrefix("-") else { return nil }
            let value = arguments[index]
            index += 1
            let single: WritableKeyPath<ShellArguments, String?>? =
                switch argument {
                case "--db": \.databaseDirectory
                case "-f", "--file": \.file
                case "--connect": \.connectURL
                case "--auth": \.authToken
                case "--cache-size": \.cacheSize
                case "--rules": \.rulesFile
                case "--plugins": \.pluginDirectory
                default: nil
                }
            switch argument {
            case "-c", "--command": commands.append(value)
            case "-e", "--eval": luaChunks.append(value)
            case "--durability":
                guard given.insert(argument).inserted else { return nil }
                durability = value
            default:
                guard let single, given.insert(single == \.file ? "-f" : argument).inserted else { return nil }
                self[keyPath: single] = value
            }
        }
    }

    /// The options for the shell, or a usage error.
    /// - Parameter environment: the process's environment (`EMBER_CACHE_SIZE`, the default
    ///   directory).
    public func shellOptions(environment: [String: String]) throws(ShellUsageError) -> ShellOptions {
        var options = ShellOptions(environment: environment)
        options.inputs = ShellOptions.inputs(arguments: commandLine, commands: commands, luaChunks: luaChunks)
        options.file = file
        options.staysInteractive = interactive
        try options.setStorage(directory: databaseDirectory, memory: memory)
        if let connectURL {
            try options.setConnection(
                url: connectURL, auth: authToken, memory: memory, directoryGiven: databaseDirectory != nil, rulesGiven: rulesFile != nil,
                environment: environment)
        } else if authToken != nil {
            throw ShellUsageError("--auth goes with --connect (in the embedded shell, sign in with the auth command)")
        }
        options.startsOffline = offline
        options.durability = try ShellOptions.durability(named: durability)
        options.serverCacheSize = try ShellOptions.serverCacheSize(option: cacheSize, environment: environment)
        options.jsonOutput = json
        options.rulesFile = rulesFile
        options.colorDisabled = noColor
        options.loadsRCFile = !noRC
        options.pluginDirectory = pluginDirectory
        options.unsafeLua = unsafeLua
        guard luaInstructions >= 0 else {
            throw ShellUsageError("--lua-instructions must be a positive number of instructions (0 for no limit), not \(luaInstructions)")
        }
        guard luaMemory >= 0, luaMemory <= 1 << 20 else {
            throw ShellUsageError("--lua-memory must be a positive number of MiB up to 1048576 (0 for no limit), not \(luaMemory)")
        }
        options.luaInstructionLimit = luaInstructions == 0 ? nil : luaInstructions
        options.luaMemoryLimit = luaMemory == 0 ? nil : luaMemory << 20
        options.quiet = quiet
        guard ackTimeout >= 0, ackTimeout <= 86_400 else {
            throw ShellUsageError("--ack-timeout must be a number of seconds from 0 (no limit) to 86400, not \(ackTimeout)")
        }
        options.acknowledgementTimeout = ackTimeout == 0 ? nil : Int64(ackTimeout) * 1_000
        var rest = scriptAndArguments[...]
        if rest.first == "--" {
            rest = rest.dropFirst()
        } else if let first = rest.first, first.hasPrefix("-"), first != "-" {
            // the parser's passthrough also captures an unknown option: that is a usage error
            throw ShellUsageError("unknown option '\(first)'")
        }
        options.script = rest.first
        options.scriptArguments = Array(rest.dropFirst())
        return options
    }
}
