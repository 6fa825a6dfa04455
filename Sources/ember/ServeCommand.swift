import ArgumentParser
import EmberInstance
import EmberNetwork
import EmberNetworkShared
import EmberShell
import Foundation
import Logging

/// `ember serve`: the databases over Firebase's protocols (realtime WebSocket, REST, event
/// streams), for Firebase's SDKs, the Admin SDK, curl and other `ember`s.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the database to Firebase's SDKs (realtime protocol v5 over WebSocket), REST and event streams.",
        usage: "ember serve [<options>]",
        discussion: """
            Each namespace (?ns=NAME) is a database of its own, opened on first use; the default \
            namespace lives in the database directory itself, so `ember --db DIR` opens the same \
            data, and NAME in DIR/namespaces/NAME. SIGINT or SIGTERM stops the server gracefully.

            Web pages: requests must name the server as localhost, 127.0.0.1, [::1] or its --host \
            (Host header; a DNS-rebinding name is refused), and a browser page (Origin header) must \
            be on this machine (http(s)://localhost|127.0.0.1|[::1], any port) or of an \
            --allow-origin origin. Clients that send no Origin (Node, curl, the Admin SDKs) are \
            served, except a request a browser marks as made by another site's page \
            (Sec-Fetch-Site: cross-site, e.g. a JSONP <script>), judged by its Referer instead.
            """
    )

    @Option(
        name: .customLong("db"),
        help: ArgumentHelp("Database directory; default $XDG_DATA_HOME/ember/default.", valueName: "DIR"),
        completion: .directory)
    var databaseDirectory: String?

    @Flag(name: .customLong("memory"), help: "Nothing on disk.")
    var memory = false

    @Option(name: .customLong("host"), help: ArgumentHelp("Address to listen on (127.0.0.1: this machine only).", valueName: "H"))
    var host = "127.0.0.1"

    @Option(name: .customLong("port"), help: ArgumentHelp("Port (9000 is the emulator's; 0 for any free port).", valueName: "P"))
    var port = 9000

    @Option(
        name: .customLong("rules"),
        help: ArgumentHelp("Security rules to put in force in every namespace (JSON with comments).", valueName: "FILE"),
        completion: .file(extensions: ["json"]))
    var rulesFile: String?

    @Option(
        name: .customLong("ns"),
        help: ArgumentHelp(
            "A namespace to serve, created if it does not exist; again for more. The first is that of requests that name none (default: default). With --rules, no one but the administrator creates other namespaces.",
            valueName: "NAME"))
    var namespaces: [String] = []

    @Option(
        name: .customLong("durability"),
        help: ArgumentHelp("off | normal | full: when the server acknowledges a write.", valueName: "M"),
        completion: .list(ShellOptions.durabilityNames))
    var durability = "normal"

    @Option(
        name: .customLong("cache-size"),
        help: ArgumentHelp(
            "How much of each namespace's stored data is kept in memory (e.g. 256MB; default 64MB, or $EMBER_CACHE_SIZE); past it, what no listener holds is evicted, least recently used first.",
            valueName: "SIZE"))
    var cacheSize: String?

    @Option(
        name: .customLong("project"),
        help: ArgumentHelp("Verify signed Firebase ID tokens of this project (unsigned ones are then refused).", valueName: "ID"))
    var project: String?

    @Option(
        name: .customLong("certs"),
        help: ArgumentHelp(
            "Keys for --project: a file or http(s) URL of Google's certificates or a JSON Web Key Set (default: Google's).",
            valueName: "FILE|URL"))
    var certs: String?

    @Option(
        name: .customLong("admin-token"),
        help: ArgumentHelp(
            "The administrator's credential over the network instead of the emulator's `owner` (at least 16 characters; "
                + "$EMBER_ADMIN_TOKEN keeps it out of the process list).",
            valueName: "SECRET"))
    var adminToken: String?

    @Option(
        name: .customLong("allow-origin"),
        help: ArgumentHelp(
            "A web page origin allowed besides this machine's, as scheme://host[:port] (repeatable; * allows every page).",
            valueName: "ORIGIN"))
    var allowOrigins: [String] = []

    @Option(name: .customLong("max-connections"), help: ArgumentHelp("Open connections at most (every HTTP connection counts, WebSockets and event streams too).", valueName: "N"))
    var maxConnections = NetworkLimits().maxConnections

    @Option(
        name: .customLong("max-message"),
        help: ArgumentHelp("The largest WebSocket message and HTTP body taken, in bytes.", valueName: "BYTES"))
    var maxMessage = NetworkLimits().maxMessageSize

    @Option(
        name: .customLong("max-unsent"),
        help: ArgumentHelp("Bytes a connection may leave unread before it is cut off.", valueName: "BYTES"))
    var maxUnsent = NetworkLimits().maxUnsentBytes

    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp(
            "Seconds a silent WebSocket stays open (Firebase's clients speak every 45); a request head gets at most 10.", valueName: "S"))
    var idleTimeout = NetworkLimits().idleTimeout

    @Flag(name: [.customShort("q"), .customLong("quiet")], help: "Log warnings and errors only (no line per connection and request).")
    var quiet = false

    @Flag(
        name: .customLong("trace"),
        help: "Log every realtime protocol message of each connection as it crosses (→ from the client, ← to it), as the shell's trace prints them.")
    var trace = false

    func configurationForServing() throws -> ServeConfiguration {
        var options = ServeConfiguration()
        options.host = host
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535, not \(port)") }
        options.port = port
        options.defaultNamespace = namespaces.first ?? "default"
        options.namespaces = Array(namespaces.dropFirst())
        for origin in allowOrigins {
            if let problem = OriginPolicy.problem(withOrigin: origin) { throw ValidationError("--allow-origin \(origin): \(problem)") }
        }
        options.allowedOrigins = allowOrigins
        options.tracesMessages = trace
        for (name, value) in [
            ("--max-connections", maxConnections), ("--max-message", maxMessage), ("--max-unsent", maxUnsent), ("--idle-timeout", idleTimeout),
        ] where value < 1 {
            throw ValidationError("\(name) must be at least 1, not \(value)")
        }
        options.limits.maxConnections = maxConnections
        options.limits.maxMessageSize = maxMessage
        options.limits.maxBodySize = maxMessage
        options.limits.maxUnsentBytes = maxUnsent
        options.limits.idleTimeout = idleTimeout
        if certs != nil, project == nil { throw ValidationError("--certs needs --project: the project whose ID tokens they verify") }
        if let project {
            guard !project.isEmpty, project.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                throw ValidationError("--project takes a Firebase project id (letters, digits and '-'), not '\(project)'")
            }
            let source: TokenVerifier.KeySource
            if let certs, certs.hasPrefix("http://") || certs.hasPrefix("https://") {
                guard let url = URL(string: certs) else { throw ValidationError("--certs: '\(certs)' is not a URL") }
                source = .url(url)
            } else if let certs {
                source = .file(certs)
            } else {
                source = .url(TokenVerifier.googleCertificates)
            }
            do {
                options.tokenVerifier = try TokenVerifier(projectID: project, source: source)
            } catch {
                throw ValidationError(error.message)
            }
        }
        if let secret = adminToken ?? ProcessInfo.processInfo.environment["EMBER_ADMIN_TOKEN"].flatMap({ $0.isEmpty ? nil : $0 }) {
            if let problem = AdminCredential.problem(with: secret) {
                throw ValidationError("--admin-token (or $EMBER_ADMIN_TOKEN) cannot be that secret: \(problem)")
            }
            options.adminCredential = .secret(secret)
        }
        // The shell's rules for --db, --memory, the default directory and --durability.
        var shell = ShellOptions(environment: ProcessInfo.processInfo.environment)
        do {
            try shell.setStorage(directory: databaseDirectory, memory: memory)
            let settings = try PersistenceSettings(
                durability: try ShellOptions.durability(named: durability),
                serverCacheSize: try ShellOptions.serverCacheSize(option: cacheSize, environment: ProcessInfo.processInfo.environment))
            options.storage = shell.databaseDirectory.map { .directory($0, settings) } ?? .memory
        } catch let error as ShellUsageError {
            throw ValidationError(error.message)
        }
        if let rulesFile {
            guard let text = try? String(contentsOfFile: rulesFile, encoding: .utf8) else {
                throw ValidationError("cannot read the rules file \(rulesFile)")
            }
            options.rulesSource = text
            options.rulesFile = rulesFile
        }
        return options
    }

    func run() throws {
        let configuration = try configurationForServing()
        // The databases are the user's alone, as the local socket is: directories 0700, SQLite
        // files 0600 (SQLite gives the -wal and -shm files the database file's mode). A
        // directory made before is made 0700 too.
        umask(0o077)
        if case .directory(let directory, _) = configuration.storage {
            for path in [directory, directory + "/namespaces", directory + "/clients"] { chmod(path, 0o700) }
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = quiet ? .warning : .info
            return handler
        }
        let logger = Logger(label: "ember.serve")
        let server: NetworkServer
        do {
            server = try NetworkServer(configuration: configuration, logger: logger)
        } catch {
            // Not a usage error: the file's content is wrong (no usage text after it).
            FileHandle.standardError.write(Data("ember serve: \(error.message)\n".utf8))
            throw ExitCode(1)
        }
        let finished = DispatchSemaphore(value: 0)
        let failure = FailureMessage()
        let display = NetworkServer.displayHost(configuration.host)
        let namespace = configuration.defaultNamespace
        let open = !configuration.isLoopbackOnly && configuration.rulesSource == nil
        Task {
            do {
                try await server.run { port in
                    var lines = [
                        "ember serve: listening on \(display):\(port)",
                        "  realtime (Firebase SDKs): ws://\(display):\(port)/.ws?v=5&ns=\(namespace)",
                        "    Web SDK: databaseURL \"http://\(display):\(port)?ns=\(namespace)\", connectDatabaseEmulator(db, \"\(configuration.host)\", \(port))",
                        "  REST: http://\(display):\(port)/.json?ns=\(namespace)",
                        "  Admin SDK: FIREBASE_DATABASE_EMULATOR_HOST=\(display):\(port)",
                        "  another ember: ember --connect 'ws://\(display):\(port)/?ns=\(namespace)'",
                    ]
                    if let verifier = configuration.tokenVerifier {
                        let keys = switch verifier.source {
                        case .file(let path): path
                        case .url(let url): url.absoluteString
                        }
                        lines.append("  ID tokens: signed tokens of project \(verifier.projectID) only, verified with the keys of \(keys)")
                    }
                    switch configuration.adminCredential {
                    case .owner:
                        if !configuration.isLoopbackOnly {
                            lines.append(
                                "warning: listening beyond this machine with the emulator's administrator: anyone who reaches the port "
                                    + "can pass every rule with the token `owner` (--admin-token SECRET replaces it)")
                        }
                    case .secret:
                        lines.append("  administrator: the --admin-token secret (not `owner`); ember --connect URL --auth SECRET")
                    }
                    if open {
                        lines.append("warning: listening beyond this machine with open rules: anyone who reaches the port can read and write everything")
                    }
                    FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
                }
            } catch let error as NetworkError {
                failure.set(error.message)
            } catch {
                let hint = SocketErrorText.isAddressInUse(error) ? " (another process listens there: choose another with --port)" : ""
                failure.set("cannot listen on \(display):\(configuration.port): \(SocketErrorText.describe(error))\(hint)")
            }
            finished.signal()
        }
        finished.wait()
        if let message = failure.value {
            FileHandle.standardError.write(Data("ember serve: \(message)\n".utf8))
            throw ExitCode(1)
        }
    }
}
