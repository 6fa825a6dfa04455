import EmberNetwork
import EmberInstance
import EmberNetworkShared
import EmberStorage
import Glibc

/// Everything the command line decides about a shell session (see `ember --help` and
/// SHELL.md's "Command line").
///
/// The `ember` executable parses the arguments and fills these in; the rules that relate them
/// (`--db` against `--memory`, durability names, the default directory, colour) live here, where
/// they are tested.
public struct ShellOptions: Sendable, Hashable {
    /// Shell commands (`-c`) and Lua chunks (`-e`) to run, in the order given on the command
    /// line; then exit unless ``staysInteractive``.
    public var inputs: [ShellInput] = []
    /// A file to run (`-f`): Lua if it ends in `.lua`, else shell commands line by line.
    public var file: String?
    /// A Lua script given as the first positional argument.
    public var script: String?
    /// The arguments after the script, for the script.
    public var scriptArguments: [String] = []
    /// Whether to stay in the REPL after the commands, chunks, file or script (`-i`).
    public var staysInteractive = false
    /// The database directory (server data and client caches); `nil` keeps nothing on disk
    /// (`--memory`).
    public var databaseDirectory: String?
    /// Whether every client starts offline (`--offline`).
    public var startsOffline = false
    /// The security rules file to put in force (`--rules`); without it, the rules kept with the
    /// database directory (or the open rules).
    public var rulesFile: String?
    /// When the server acknowledges writes (`--durability`).
    public var durability: Durability = .normal
    /// How many bytes of stored rows the embedded server keeps in memory (`--cache-size`, or
    /// `EMBER_CACHE_SIZE`).
    public var serverCacheSize: Int = PersistenceSettings.standard.serverCacheSize
    /// Whether results are printed as one JSON document per line (`--json`).
    public var jsonOutput = false
    /// Whether colour was turned off on the command line (`--no-color`).
    public var colorDisabled = false
    /// Whether `~/.config/ember/init.lua` runs at start (not with `--no-rc`).
    public var loadsRCFile = true
    /// A directory of extra plugins, loaded after `~/.config/ember/plugins` (`--plugins`).
    public var pluginDirectory: String?
    /// Whether scripts get `io`, `os` and `require` (`--unsafe-lua`).
    public var unsafeLua = false
    /// How many VM instructions a script may run without waiting (`--lua-instructions`;
    /// `nil`: no limit). About 5 seconds of pure Lua by default.
    public var luaInstructionLimit: Int? = 1_000_000_000
    /// How many bytes the Lua state may hold (`--lua-memory`, in MiB; `nil`: no limit).
    public var luaMemoryLimit: Int? = 512 << 20
    /// How long a script's write waits for its acknowledgement, in milliseconds
    /// (`--ack-timeout`, in seconds; `nil`: no limit).
    public var acknowledgementTimeout: Int64? = 30_000
    /// Whether the banner is left out (`-q`).
    public var quiet = false
    /// The server in another process the clients connect to (`--connect URL`); `nil` embeds
    /// the server.
    public var connectURL: String?
    /// The token every client signs in with (`--auth TOKEN`): a Firebase ID token (a JWT) signs
    /// in as its user; anything else (the emulator's `owner`, an access token) as an
    /// administrator.
    public var authToken: String?
    /// Where the clients of ``connectURL`` keep their caches and queues: one directory per
    /// server, under the data directory; `nil` with `--memory`.
    public var remoteCacheDirectory: String?
    /// Where the clients of a second terminal on a database directory (one another `ember`
    /// holds, reached through its local socket) keep their caches and queues: under the data
    /// directory's `remote/`, one directory per database directory. `nil` keeps them in memory.
    public var remoteCacheRoot: String?

    /// Creates the default options, with the default database directory found in `environment`.
    public init(environment: [String: String]) {
        databaseDirectory = Self.defaultDatabaseDirectory(environment: environment)
        remoteCacheRoot = databaseDirectory.map { String($0.dropLast("default".count)) + "remote/" }
    }

    /// The directory a second terminal on the database directory `directory` keeps its
    /// clients' caches and queues in: named after the directory's real path, so that the same
    /// database reached from anywhere finds the same queue.
    public func sharedDatabaseCacheDirectory(for directory: String) -> String? {
        guard let remoteCacheRoot else { return nil }
        let real = realpath(directory, nil).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)
        } ?? directory
        return remoteCacheRoot + RemoteAddress.directoryName(for: "db:" + real)
    }

    /// Reads a `--cache-size` value (or `EMBER_CACHE_SIZE`, named by `source`): a number of
    /// bytes, or of KB, MB or GB (1024 bytes, 1024 KB, 1024 MB; `K`, `KiB` and the like work too).
    /// - Throws: ``ShellUsageError`` saying what was expected.
    public static func byteSize(_ text: String, source: String = "--cache-size") throws(ShellUsageError) -> Int {
        let trimmed = text.filter { $0 != " " }
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        let unit = trimmed.dropFirst(digits.count).uppercased()
        let shifts: [String: Int] = ["": 0, "B": 0, "K": 10, "KB": 10, "KIB": 10, "M": 20, "MB": 20, "MIB": 20, "G": 30, "GB": 30, "GIB": 30]
        guard let number = Int(digits), number > 0, let shift = shifts[unit], number <= Int.max >> shift else {
            throw ShellUsageError("\(source) must be a positive size such as 268435456, 256MB or 2GB, not \"\(text)\"")
        }
        return number << shift
    }

    /// The server's cache size: `--cache-size` when given, else `EMBER_CACHE_SIZE` when set,
    /// else the default.
    /// - Throws: ``ShellUsageError`` for a value that is not a size.
    public static func serverCacheSize(option: String?, environment: [String: String]) throws(ShellUsageError) -> Int {
        if let option { return try byteSize(option) }
        if let variable = environment["EMBER_CACHE_SIZE"], !variable.isEmpty { return try byteSize(variable, source: "EMBER_CACHE_SIZE") }
        return PersistenceSettings.standard.serverCacheSize
    }

    /// The names `--durability` accepts.
    public static let durabilityNames = Durability.allCases.map(\.rawValue)

    /// Reads a `--durability` value.
    /// - Throws: ``ShellUsageError`` naming the accepted values.
    public static func durability(named name: String) throws(ShellUsageError) -> Durability {
        guard let durability = Durability(rawValue: name) else {
            throw ShellUsageError("invalid durability \"\(name)\": expected off, normal or full")
        }
        return durability
    }

    /// Applies `--db DIR` and `--memory`.
    /// - Throws: ``ShellUsageError`` when both are given.
    public mutating func setStorage(directory: String?, memory: Bool) throws(ShellUsageError) {
        switch (directory, memory) {
        case (.some, true):
            throw ShellUsageError("--db and --memory cannot be used together")
        case (.some(let directory), false):
            databaseDirectory = directory
        case (.none, true):
            databaseDirectory = nil
        case (.none, false):
            break
        }
    }

    /// Applies `--connect URL` (with `--memory` or not, `--db` or not, `--rules` or not).
    /// - Throws: ``ShellUsageError`` when a flag that needs the embedded server is given too.
    public mutating func setConnection(
        url: String, auth: String?, memory: Bool, directoryGiven: Bool, rulesGiven: Bool, environment: [String: String]
    ) throws(ShellUsageError) {
        guard !url.isEmpty else { throw ShellUsageError("--connect needs the URL of a server, such as ws://127.0.0.1:9000/?ns=demo") }
        if directoryGiven {
            throw ShellUsageError("--db and --connect cannot be used together: the data is the server's (the clients' caches go under the data directory, per server)")
        }
        if rulesGiven { throw ShellUsageError("--rules needs the embedded server: load rules where the server runs (ember serve --rules FILE)") }
        connectURL = url
        authToken = auth
        databaseDirectory = nil
        remoteCacheDirectory = memory ? nil : Self.remoteCacheDirectory(for: url, environment: environment)
    }

    /// `$XDG_DATA_HOME/ember/remote/NAME` (or `~/.local/share/ember/remote/NAME`), NAME
    /// naming `url` (``RemoteAddress/directoryName(for:)``).
    public static func remoteCacheDirectory(for url: String, environment: [String: String]) -> String {
        defaultDatabaseDirectory(environment: environment).dropLast("default".count) + "remote/" + RemoteAddress.directoryName(for: url)
    }

    /// `$XDG_DATA_HOME/ember/default`, or `~/.local/share/ember/default` when `XDG_DATA_HOME` is
    /// unset, empty or relative (the XDG rule); relative to the working directory without `HOME`.
    public static func defaultDatabaseDirectory(environment: [String: String]) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/ember/default"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "."
        return home + "/.local/share/ember/default"
    }

    /// Whether output is coloured: not with `--no-color`, not when `NO_COLOR` is set to anything
    /// but the empty string, not when the output is not a terminal.
    public func usesColor(environment: [String: String], outputIsTerminal: Bool) -> Bool {
        !colorDisabled && (environment["NO_COLOR"] ?? "").isEmpty && outputIsTerminal
    }

    /// Whether the session ends after running the commands, chunks, file or script.
    public var runsBatchOnly: Bool {
        !staysInteractive && (!inputs.isEmpty || file != nil || script != nil)
    }

    /// The `-c` commands and `-e` chunks in the order `arguments` gave them (an argument parser
    /// collects each option's values apart): the order of the `-c`/`--command` and
    /// `-e`/`--eval` options among `arguments`, matched to `commands` and `luaChunks`. When
    /// the count of options found does not match (a script's own arguments that look like
    /// them), the commands run first, then the chunks.
    /// - Complexity: O(n) in the number of arguments.
    public static func inputs(arguments: [String], commands: [String], luaChunks: [String]) -> [ShellInput] {
        var isCommand: [Bool] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" { break }
            switch argument {
            case "-c", "--command":
                isCommand.append(true)
                index += 2
                continue
            case "-e", "--eval":
                isCommand.append(false)
                index += 2
                continue
            default:
                if argument.hasPrefix("--command=") {
                    isCommand.append(true)
                } else if argument.hasPrefix("--eval=") {
                    isCommand.append(false)
                }
            }
            index += 1
        }
        guard isCommand.filter({ $0 }).count == commands.count, isCommand.filter({ !$0 }).count == luaChunks.count else {
            return commands.map(ShellInput.command) + luaChunks.map(ShellInput.lua)
        }
        var nextCommand = commands.makeIterator()
        var nextChunk = luaChunks.makeIterator()
        return isCommand.compactMap { $0 ? nextCommand.next().map(ShellInput.command) : nextChunk.next().map(ShellInput.lua) }
    }
}
