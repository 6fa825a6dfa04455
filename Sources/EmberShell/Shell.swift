import DequeModule
import EmberClient
import EmberCore
import EmberEngine
import EmberInstance
import EmberLua
import EmberNetwork
import EmberNetworkShared
import EmberQL
import EmberRemote
import EmberRules
import EmberStorage
import EmberServer
import EmberSync
import EmberWire
import Glibc

/// An `ember` session: an embedded instance (server + named clients), the current client and
/// location, the output settings, the watches; it runs query-language commands and prints their
/// results.
///
/// The same session serves `-c`, `-f`, standard input and the REPL: ``execute(_:)`` runs one
/// entry and prints its result or its error. Waiting (for a write's acknowledgement, a `get`)
/// runs the instance's engine, so watches print their events meanwhile; Ctrl-C stops the wait.
///
/// ```swift
/// let shell = try Shell(options: options, output: StandardOutput())
/// shell.execute("set /greeting 'hello'")   // ok
/// shell.execute("get /greeting")           // "hello"
/// ```
public final class Shell {
    /// The version `ember --version` prints.
    public static let version = "0.1.0"

    /// The command-line settings the session started with.
    public let options: ShellOptions
    /// The embedded instance (or the clients of a server in another process).
    public let ember: Ember
    /// The server of the local socket other terminals connect through, while it runs.
    var localSocket: LocalSocketService?
    /// Whether the end of the run waits for the processes connected through the local socket
    /// (a command-line run's; an interactive session ends them).
    var waitsForLocalClients = false
    /// When a command-line run starts serving the local socket (engine time), until it does.
    var localSocketDue: Int64?
    /// The database directory another `ember` holds, which this session reached through its
    /// local socket (a second terminal).
    public private(set) var sharedDatabase: String?
    /// Where a second terminal's clients keep their caches and queues (`nil`: in memory).
    public private(set) var sharedCache: String?

    /// Where results, errors and events go.
    public let output: any ShellOutput
    /// Where the session is and how it shows things: the current client and location, the
    /// output settings, the watches, the traces and the tour (``SessionState``).
    public var state: SessionState
    /// The styles of pretty output.
    public internal(set) var style: TextStyle
    /// Asks the user a yes/no question (the REPL sets it; without it nothing is asked).
    public var confirm: ((String) -> Bool)?
    /// The entries of the REPL's history, for `history` (the REPL sets it).
    public var historyEntries: (() -> [String])?
    /// The Lua runtime, created on first use.
    var luaRuntime: LuaRuntime?
    /// The session's Lua globals, for completion in Lua mode.
    var luaGlobals: LuaTableReference?
    /// The data viewer `view` serves, while it runs.
    var viewer: ViewerService?
    /// Whether pretty output may be coloured (a terminal, no `NO_COLOR`, no `--no-color`).
    let colorAllowed: Bool
    /// The commands plugins added, by name.
    public internal(set) var pluginCommands: [PluginCommand] = []

    /// Opens the session's instance as `options` say (a database directory, or memory), with
    /// `clock` and `random` for the engine (tests inject a manual clock and seeded randomness).
    /// - Throws: ``ShellError`` when the database directory cannot be opened.
    public init(
        options: ShellOptions, output: any ShellOutput, colored: Bool = false,
        clock: any DatabaseClock = SystemClock(), random: any RandomNumberGenerator = SystemRandomNumberGenerator()
    ) throws(ShellError) {
        self.options = options
        self.output = output
        state = SessionState(outputMode: options.jsonOutput ? .json : .pretty)
        colorAllowed = colored
        style = TextStyle(colored: colored && !options.jsonOutput)
        let rules: Ruleset?
        do {
            rules = try options.rulesFile.map { (file) throws(ShellError) in try Self.rules(fromFile: file) }
        } catch {
            throw .command(error.code, "--rules: \(error.message)")
        }
        if let url = options.connectURL {
            // A user's ID token signs each client in; anything else is an administrator's
            // credential, which each connection presents.
            var adminCredential: String?
            var userToken: AuthToken?
            if let token = options.authToken {
                if let parsed = try? AuthToken(parsing: token) { userToken = parsed } else { adminCredential = token }
            }
            ember = try Self.remoteEmber(
                url: url, cacheDirectory: options.remoteCacheDirectory, durability: options.durability, adminCredential: adminCredential,
                userToken: userToken, clock: clock, random: random)
        } else if let directory = options.databaseDirectory {
            if let problem = FileAccess.databaseDirectoryProblem(directory) {
                throw .command(ErrorCode.storageError, "cannot open the database at \(directory): \(problem)")
            }
            do {
                let settings = try PersistenceSettings(
                    durability: options.durability, clientCacheSize: PersistenceSettings.standard.clientCacheSize,
                    serverCacheSize: options.serverCacheSize)
                ember = try Ember(
                    persistence: .directory(directory, settings), clock: clock, random: random, rules: rules,
                    observesInterruptSignal: true)
            } catch let error as StoreError {
                if error.code == ErrorCode.databaseInUse {
                    // Another ember holds it: its local socket, if it serves one, is the way in
                    // (a command-line run serves it shortly after it starts: wait for it a little).
                    guard let socket = Self.listeningSocket(of: directory, waitingUpTo: 3) else { throw .command(error.code, error.message) }
                    // Its clients keep their queues on disk as the first terminal's do (issue
                    // 37: they were in memory, and a write queued offline vanished at exit);
                    // in memory only when a third terminal holds that directory too.
                    let cache = options.sharedDatabaseCacheDirectory(for: directory)
                    do {
                        ember = try Self.remoteEmber(
                            url: "unix:" + socket, cacheDirectory: cache, durability: options.durability, adminCredential: nil,
                            userToken: nil, clock: clock, random: random)
                        sharedCache = cache
                    } catch where cache != nil && error.code == ErrorCode.databaseInUse {
                        ember = try Self.remoteEmber(
                            url: "unix:" + socket, cacheDirectory: nil, durability: options.durability, adminCredential: nil,
                            userToken: nil, clock: clock, random: random)
                    }
                    sharedDatabase = directory
                } else {
                    throw .command(error.code, "cannot open the database at \(directory): \(error.message)")
                }
            } catch {
                throw .command(ErrorCode.storageError, "cannot open the database at \(directory): \(error)")
            }
        } else {
            ember = Ember(clock: clock, random: random, rules: rules ?? .open, observesInterruptSignal: true)
        }
        if let remote = ember.remoteServer {
            remote.onNotice = { [unowned self] text in note(text, json: .object([("notice", .string(text))])) }
        }
        _ = database
        // the first client connects before the first command
        settle()
        if let sharedDatabase, let remote = ember.remoteServer {
            let queues = sharedCache.map { "its clients' queues are kept in \($0)" }
                ?? "its clients' queues are in memory only (another terminal keeps them on disk)"
            note(
                "the database at \(sharedDatabase) is open in another ember: connected to it through \(remote.url); \(queues)",
                json: .object([
                    ("database", .string(sharedDatabase)), ("connectedThrough", .string(remote.url)),
                    ("queues", sharedCache.map { .string($0) } ?? .string("memory")),
                ]))
        }
    }

    /// An instance whose clients connect to the server at `url`, keeping their caches in
    /// `cacheDirectory` (in memory without one).
    private static func remoteEmber(
        url: String, cacheDirectory: String?, durability: Durability, adminCredential: String?, userToken: AuthToken?,
        clock: any DatabaseClock, random: any RandomNumberGenerator
    ) throws(ShellError) -> Ember {
        let address: RemoteAddress
        do {
            address = try RemoteAddress(parsing: url)
        } catch {
            throw .command(error.code, error.message)
        }
        var persistence = Persistence.memory
        if let cacheDirectory {
            do {
                let settings = try PersistenceSettings(durability: durability, clientCacheSize: PersistenceSettings.standard.clientCacheSize)
                persistence = .directory(cacheDirectory, settings)
            } catch {
                throw .command(ErrorCode.invalidArgument, "\(error)")
            }
        }
        do {
            return try Ember(
                remote: WebSocketRemote(address: address, adminCredential: adminCredential), persistence: persistence, signIn: userToken,
                clock: clock, random: random, observesInterruptSignal: true)
        } catch {
            throw .command(error.code, "cannot keep the clients' caches at \(cacheDirectory ?? "?"): \(error.message)")
        }
    }

    /// The engine that runs the session's instance.
    public var engine: Engine { ember.engine }

    /// The database of the client commands run as now; created (and connecting, unless the
    /// session starts clients offline) on first use.
    public var database: Database {
        ember.client(state.clientOverride ?? state.currentClient, startOffline: options.startsOffline)
    }

    /// The formatter for values.
    var formatter: ValueFormatter { ValueFormatter(style: style) }

    /// Whether machine output is on.
    var isJSON: Bool { state.outputMode == .json }

    /// The prompt: `client:/location> `, with who the client is signed in as (`[alice]`,
    /// `[alice expired]`) and the connection's state when it is not connected: `(offline)`,
    /// `(disconnected)` or `(connecting)`; the REPL draws it again when that changes.
    public var prompt: String {
        let connection = database.connectionState
        let marker = connection == .connected ? "" : "(\(connection))"
        return "\(state.currentClient)\(identityMark)\(marker):\(state.location)> "
    }

    // MARK: Running commands

    /// Runs one entry (a line, or several lines of one multi-line entry): parses it, runs it,
    /// prints its result or its error.
    /// - Returns: whether it succeeded (a blank line or a comment succeeds).
    /// - Parameter origin: the file and line the entry was read from, named in its error.
    @discardableResult
    public func execute(_ source: String, from origin: InputOrigin? = nil) -> Bool {
        let started = ember.clock.now()
        defer {
            if state.timing && !isJSON {
                let line = style.dim("time: \(ember.clock.now() - started) ms") + "\n"
                // At the prompt the result may still be held for the pager: the time follows it.
                if state.holdsTiming { state.heldTiming = line } else { output.writeError(line) }
            }
        }
        var command: Command?
        do {
            command = try parse(source)
            guard let command else { return true }
            let result = try perform(command)
            show(result)
            tourAfter(command, source: source, failure: nil)
            // A client opened by the command may have found its store unreadable.
            return reportNotices()
        } catch {
            releaseHeldEvents()
            report(error, source: source, from: origin)
            tourAfter(command, source: source, failure: error.code)
            return false
        }
    }

    /// Runs a command to its end: what it started settles, its events printing as they happen
    /// (but those of the watches it started, held for ``show(_:)``).
    /// - Returns: its result, for the caller to show or hand over.
    func perform(_ command: Command) throws(ShellError) -> CommandResult {
        let result = try run(command)
        settle()
        return result
    }

    /// Prints a command's result in the output mode, then the events of the watches it started.
    func show(_ result: CommandResult) {
        if let text = renderer.render(result) { output.write(text) }
        releaseHeldEvents()
    }

    /// Compiles `source`.
    func parse(_ source: String) throws(ShellError) -> Command? {
        do {
            return try CommandParser.parse(source)
        } catch {
            throw .syntax(error)
        }
    }

    /// Prints `error`: pretty (with a caret under the input's offending word) or as one JSON
    /// document on stderr.
    public func report(_ error: ShellError, source: String? = nil, from origin: InputOrigin? = nil) {
        // `ember.exit(n)` stops the script with an error that is not one.
        if state.exitRequested, case .lua(let lua) = error, lua.code == ErrorCode.exit { return }
        output.writeError(explained(error).rendered(source: source, json: isJSON, style: style, origin: origin) + "\n")
    }

    /// `error`, with what the user can do about it where that is the shell's to say: a Lua
    /// script out of memory names the limit and `--lua-memory`.
    func explained(_ error: ShellError) -> ShellError {
        guard case .lua(let lua) = error, lua.kind == .memory else { return error }
        let limit =
            options.luaMemoryLimit.map { "Lua may use at most \($0 >> 20) MiB here; --lua-memory MiB raises it, 0 removes the limit" }
            ?? "the machine has no more memory to give Lua"
        return .lua(LuaError(.memory, message: "\(lua.message) (\(limit))", traceback: lua.traceback, code: lua.code))
    }

    /// Runs a compiled command and returns its result (nothing is printed but live events):
    /// its family's executor runs it (``CommandFamily``).
    func run(_ command: Command) throws(ShellError) -> CommandResult {
        guard let (_, action) = Self.action(for: command) else {
            throw .command(ErrorCode.internalError, "no family of commands runs \(command)")
        }
        return try action(self)
    }

    // MARK: Shared helpers

    /// The absolute path `expression` names from the current location.
    func resolve(_ expression: PathExpression) throws(ShellError) -> Path {
        do {
            return try expression.resolved(against: state.location)
        } catch {
            throw .syntax(error)
        }
    }

    /// Waits on the engine until `condition` holds; Ctrl-C stops the wait, and `interrupted`
    /// says what became of the operation that was being waited for.
    func wait(until condition: () -> Bool, interrupted: String) throws(ShellError) {
        try require(engine.wait(until: condition), interrupted: interrupted)
    }

    /// Turns a wait's outcome into the shell's error: Ctrl-C becomes `interrupted`, saying what
    /// became of the operation; a deadline that passed is no error.
    func require(_ outcome: WaitOutcome, interrupted: String) throws(ShellError) {
        switch outcome {
        case .satisfied, .timedOut: return
        case .interrupted: throw .interrupted(interrupted)
        case .wouldWaitForever, .reentrant: throw .database(outcome.error!, at: nil)
        }
    }

    /// Waits on the engine until `pending` has its answer; Ctrl-C stops the wait, and
    /// `interrupted` says what became of the operation.
    func wait<Answer>(for pending: Pending<Answer>, interrupted: String) throws(ShellError) {
        try wait(until: { pending.isFilled }, interrupted: interrupted)
    }

    /// The end of every command (and of opening the session): the engine runs until no message
    /// is in flight, so that what the command started has arrived and its events (and callbacks)
    /// have run before the next prompt. Ctrl-C ends it early; nothing to wait for is not an
    /// error.
    func settle() {
        engine.wait(until: { engine.messagesInFlight == 0 })
    }

    /// The renderer of the session's output mode and styles.
    var renderer: ResultRenderer { ResultRenderer(mode: state.outputMode, style: style) }

    /// Says something about the command on stderr, so that stdout holds only the result: a
    /// dim line of text, or `json` in JSON mode; nothing for `ember.exec`.
    func note(_ text: String, json: JSONValue) {
        guard !state.runningForScript else { return }
        output.writeError(isJSON ? json.serialized() + "\n" : style.dim(text) + "\n")
    }

    /// Writes a line of progress that is not the result (a transaction's attempts), for people
    /// only: not in JSON, not for `ember.exec`. It prints as it happens, as events do (the
    /// pager holds results only).
    func progress(_ line: String) {
        guard !isJSON && !state.runningForScript else { return }
        output.writeEvent(line + "\n")
    }

    /// The local socket another process serves for `directory`, waiting up to `seconds` for it
    /// to listen.
    static func listeningSocket(of directory: String, waitingUpTo seconds: Int) -> String? {
        for _ in 0..<(seconds * 50) {
            if let socket = LocalSocket.listening(forDatabase: directory) { return socket }
            usleep(20_000)
        }
        return LocalSocket.listening(forDatabase: directory)
    }

    /// Commits what waits and closes the stores; the session cannot run commands afterwards.
    /// - Returns: whether everything was committed and closed; when not, the error is printed
    ///   (and the run's exit status must say so).
    @discardableResult
    public func close() -> Bool {
        // the Lua state goes first, while the database is still open: the finalizers it runs as
        // it closes stop at the limits and on Ctrl-C, and find `db` closed instead of a dangling
        // runtime
        luaGlobals = nil
        luaRuntime = nil
        waitForLocalClients()
        stopLocalSocket()
        stopViewer()
        try? ember.flush()
        do {
            try ember.close()
            return true
        } catch {
            report(.command(error.code, error.message, at: nil))
            return false
        }
    }
}
