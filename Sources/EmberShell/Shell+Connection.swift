import EmberClient
import EmberCore
import EmberEngine
import EmberInstance
import EmberLua
import EmberServer
import Foundation
import EmberQL
import EmberRules
import EmberStorage
import EmberWire

/// The connection, presence, client and server commands.
extension Shell {
    func goOffline() -> CommandResult {
        database.goOffline()
        return .done("\(database.name) is offline: writes queue until online")
    }

    /// Restores the connection; the queued writes go out and are answered as the command
    /// settles, before it reports.
    func goOnline() -> CommandResult {
        database.goOnline()
        waitForConnection(of: database)
        return .done("\(database.name) is online")
    }

    /// Drops the client's connection silently, as a pulled cable: nothing is said to the
    /// server, which notices at its timeout (a server in another process: its socket stays open
    /// and silent until the server closes it, `ember serve --idle-timeout`).
    func drop() -> CommandResult {
        ember.drop(database.name)
        let timeout = ember.remoteServer == nil ? "(server timeout MS sets it)" : "(ember serve --idle-timeout S sets it)"
        return .done("\(database.name)'s connection dropped: the server notices after its timeout \(timeout)")
    }

    func status() -> CommandResult {
        let database = database
        let cacheBytes: Int
        if let size = try? database.cacheSize() {
            cacheBytes = size
        } else {
            // in memory: what the client's listens hold (each location once)
            let paths = Set(database.activeListens.map(\.path)).sorted()
            let outermost = paths.filter { path in !paths.contains { $0 != path && $0.contains(path) } }
            cacheBytes = outermost.reduce(0) { total, path in
                total + (database.cachedValue(at: path)?.jsonValue(.export).serialized().utf8.count ?? 0)
            }
        }
        let listeners = state.watches.values.filter { $0.client == database.name }.count
        let json = JSONValue.object([
                ("client", .string(database.name.rawValue)),
                ("connected", .bool(database.connectionState.isConnected)),
                ("serverTimeOffset", .int(database.serverTimeOffset)),
                ("pendingWrites", .int(Int64(database.pendingWriteCount))),
                ("listeners", .int(Int64(listeners))),
                ("cacheBytes", .int(Int64(cacheBytes))),
                ("database", .string(databaseDescription)),
                ("auth", identityJSON(database)),
                ("rules", .string(ember.administration.map { $0.rules.isOpen ? "open" : "loaded" } ?? "remote")),
                ("server", .string(ember.remoteServer?.url ?? "embedded")),
                ("serverCache", serverCacheJSON),
                ("storeError", database.lastStoreError.map { .string($0.message) } ?? .null),
                ("setAside", .array(ember.persistence.setAsideFiles().map { .string($0) })),
                ("notices", .array(ember.notices.map { notice in
                    .object([("code", .string(notice.code)), ("message", .string(notice.description))])
                })),
            ])
        let connection = database.connectionState
        let rows: [(String, String)] = [
            ("client", database.name.rawValue),
            ("connection", connection.isConnected ? style.ok(connection.description) : style.warning(connection.description)),
            ("server time offset", "\(database.serverTimeOffset) ms"),
            ("pending writes", "\(database.pendingWriteCount)"),
            ("listeners", "\(listeners)"),
            ("cache", Self.bytes(cacheBytes)),
            ("database", databaseDescription),
        ] + serverCacheRow + [
            ("auth", identityDescription(database.authState)),
            ("rules", rulesDescription),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        var lines = rows.map { name, value in name + ":" + String(repeating: " ", count: width - name.count + 1) + value }
        if let error = database.lastStoreError {
            lines.append(style.warning("store error: \(error.message)"))
        }
        for notice in ember.notices {
            lines.append(style.warning("found at start: \(notice.description)"))
        }
        for file in ember.persistence.setAsideFiles() {
            lines.append(style.warning("set aside (unreadable, kept for inspection): \(file)"))
        }
        return .report(text: lines.joined(separator: "\n"), json: json)
    }

    /// What the embedded server keeps of its store in memory, for `status` (nothing for a
    /// server in memory or in another process).
    private var serverCacheRow: [(String, String)] {
        guard let server = ember.administration else { return [] }
        let use = server.cacheUse
        guard use.isPaged else { return [] }
        return [(
            "server cache",
            "\(Self.bytes(use.bytes)) of \(Self.bytes(server.cacheSize)) in \(use.regions) \(use.regions == 1 ? "location" : "locations")"
                + " (\(use.loads) read from the store, \(use.evictions) evicted; --cache-size sets it)"
        )]
    }

    private var serverCacheJSON: JSONValue {
        guard let server = ember.administration, server.cacheUse.isPaged else { return .null }
        let use = server.cacheUse
        return .object([
            ("bytes", .int(Int64(use.bytes))), ("capacity", .int(Int64(server.cacheSize))), ("locations", .int(Int64(use.regions))),
            ("loads", .int(Int64(use.loads))), ("evictions", .int(Int64(use.evictions))),
        ])
    }

    /// Which rules are in force, for `status`.
    var rulesDescription: String {
        guard let rules = ember.administration?.rules else { return "kept by the server (rules are loaded where it runs)" }
        if rules.isOpen { return style.warning("open: everyone may read and write (rules load FILE sets rules)") }
        return "\(rules.entries.count) \(rules.entries.count == 1 ? "rule" : "rules") loaded (rules show prints them)"
    }

    /// Where the data lives, for `status`.
    var databaseDescription: String {
        if let remote = ember.remoteServer {
            let shared = sharedDatabase.map { "\($0), held by another ember, through " } ?? ""
            switch ember.persistence {
            case .memory: return "\(shared)\(remote.url) (the clients' caches in memory)"
            case .directory(let directory, _): return "\(shared)\(remote.url) (the clients' caches in \(directory))"
            }
        }
        switch ember.persistence {
        case .memory: return "in memory"
        case .directory(let directory, _): return directory
        }
    }

    /// The administration of the embedded server, for a command that acts on it.
    /// - Throws: `needs_embedded_server` when the server is in another process.
    func administration(for command: String) throws(ShellError) -> ServerAdministration {
        guard let server = ember.administration else {
            throw .command(
                ErrorCode.needsEmbeddedServer,
                "\(command) needs an embedded server: this session's clients are connected to \(ember.remoteServer?.url ?? "another process")")
        }
        return server
    }

    /// `1.2 KB`-style sizes.
    static func bytes(_ count: Int) -> String {
        if count < 1024 { return "\(count) B" }
        let units = ["KB", "MB", "GB"]
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f %@", value, units[unit])
    }

    func onDisconnect(_ expression: PathExpression, _ action: OnDisconnectAction) throws(ShellError) -> CommandResult {
        let path = try resolve(expression)
        let onDisconnect = database.reference(path).onDisconnect()
        let position: SourcePosition
        let start: (@escaping (DatabaseError?) -> Void) throws(DatabaseError) -> Void
        switch action {
        case .set(let value, let priority):
            let priority = try priority.map { (priority) throws(ShellError) in try Self.priority(priority) }
            position = value.position
            start = { (done) throws(DatabaseError) in try onDisconnect.setValue(value.value, priority: priority ?? nil, completion: done) }
        case .update(let value):
            guard case .object(let members) = value.value else {
                throw .command(ErrorCode.invalidValue, "ondisconnect update needs an object", at: value.position)
            }
            position = value.position
            start = { (done) throws(DatabaseError) in
                try onDisconnect.updateChildValues(members, completion: done)
            }
        case .remove:
            position = expression.position
            start = { (done) throws(DatabaseError) in try onDisconnect.removeValue(completion: done) }
        case .cancel:
            position = expression.position
            start = { (done) throws(DatabaseError) in try onDisconnect.cancel(completion: done) }
        }
        return .write(WriteReport(try performWrite(at: position, on: database, start)))
    }

    func changeLocation(_ expression: PathExpression) throws(ShellError) -> CommandResult {
        state.location = expression.text.isEmpty ? .root : try resolve(expression)
        return .location(state.location, shown: false)
    }

    /// Whether a client named `name` exists: open now, or kept in the database directory.
    func clientExists(_ name: String) -> Bool {
        if ember.clientNames.contains(where: { $0.rawValue == name }) { return true }
        if case .directory(let directory, _) = ember.persistence {
            return FileManager.default.fileExists(atPath: Persistence.clientFile(name, in: directory))
        }
        return false
    }

    func switchClient(_ name: Word, auth: AuthAction?) throws(ShellError) -> CommandResult {
        let existing = clientExists(name.text)
        let client: Database
        do {
            client = try ember.client(named: name.text, startOffline: options.startsOffline)
        } catch {
            throw .database(error, at: name.position)
        }
        let isNew = !existing
        state.currentClient = client.name
        waitForConnection(of: client)
        var json: [(key: String, value: JSONValue)] = [("client", .string(client.name.rawValue)), ("created", .bool(isNew))]
        var text = "client \(client.name)" + (isNew ? " (new)" : "") + ": \(client.connectionState)"
        if let auth {
            let signedIn = try authenticate(auth, client: client)
            text += "\n" + signedIn.text
            json.append(("auth", signedIn.json))
        } else if client.authState != .signedOut {
            text += ", " + identityDescription(client.authState)
            json.append(("auth", identityJSON(client)))
        }
        return .report(text: text, json: .object(json))
    }

    func listClients() -> CommandResult {
        let names = ember.clientNames
        let json = JSONValue.array(names.map { name in
                let client = ember.client(name)
                return .object([
                    ("client", .string(name.rawValue)), ("current", .bool(name == state.currentClient)),
                    ("state", .string(client.connectionState.description)),
                    ("pendingWrites", .int(Int64(client.pendingWriteCount))),
                    ("listeners", .int(Int64(state.watches.values.filter { $0.client == name }.count))),
                    ("uid", client.authState.token.map { .string($0.uid) } ?? .null),
                    ("writesHeld", .bool(client.writesHeld)),
                ])
            })
        // Columns: each name and state padded to the widest (styles add no width).
        let nameWidth = names.map(\.rawValue.count).max() ?? 0
        let stateWidth = names.map { ember.client($0).connectionState.description.count }.max() ?? 0
        let identities = names.map { ember.client($0).authState }
        func identity(_ state: AuthState) -> String {
            state == .signedOut ? "-" : state.description + (state.holdsWrites ? ", writes held" : "")
        }
        let identityWidth = identities.contains(where: { $0 != .signedOut }) ? identities.map { identity($0).count }.max() ?? 0 : 0
        func padded(_ text: String, to width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
        let lines = names.enumerated().map { index, name in
            let client = ember.client(name)
            let who = identityWidth == 0 ? "" : "  " + padded(identity(identities[index]), to: identityWidth)
            let marker = name == state.currentClient ? "* " : "  "
            let connection = client.connectionState
            let pending = client.pendingWriteCount
            let listeners = state.watches.values.filter { $0.client == name }.count
            let stateText = padded(connection.description, to: stateWidth)
            return marker + padded(name.rawValue, to: nameWidth) + "  " + (connection.isConnected ? style.ok(stateText) : style.warning(stateText))
                + (identities[index].holdsWrites ? style.warning(who) : who)
                + style.dim("  \(pending) pending, \(listeners) \(listeners == 1 ? "watch" : "watches")")
        }
        return .report(text: lines.joined(separator: "\n"), json: json)
    }

    func runAs(_ name: Word, _ command: Command) throws(ShellError) -> CommandResult {
        let isNew = !clientExists(name.text)
        let client: Database
        do {
            client = try ember.client(named: name.text, startOffline: options.startsOffline)
        } catch {
            throw .database(error, at: name.position)
        }
        waitForConnection(of: client)
        if isNew {
            // `as` creates the client it names: said, so that a typo does not pass unnoticed.
            note(
                "client \(client.name) (new): \(client.connectionState)",
                json: .object([("client", .string(client.name.rawValue)), ("created", .bool(true))]))
        }
        let previous = state.clientOverride
        state.clientOverride = client.name
        defer { state.clientOverride = previous }
        return try run(command)
    }

    /// Lets a client whose connection is opening finish opening it (one waiting to reconnect, or
    /// offline by choice, is left as it is): what `client`, `as` and `online` do before they
    /// report. Ctrl-C ends it.
    private func waitForConnection(of client: Database) {
        engine.wait(until: { client.connectionState != .connecting })
    }

    func setClockSkew(_ milliseconds: Int64) throws(ShellError) -> CommandResult {
        try administration(for: "server clock skew").clockSkew = milliseconds
        return .done("the server's clock runs \(milliseconds) ms ahead (clients learn it when they next connect: offline, then online)")
    }

    /// Lets time pass, delivering what falls due; Ctrl-C stops it.
    func sleep(_ milliseconds: Int64) throws(ShellError) {
        try require(engine.advance(by: milliseconds), interrupted: "stopped sleeping")
    }

    func setDisconnectTimeout(_ milliseconds: Int64) throws(ShellError) -> CommandResult {
        _ = try administration(for: "timeout")
        ember.disconnectTimeout = milliseconds
        return .done("the server notices a dropped connection after \(milliseconds) ms (connections opened from now on)")
    }

    func setLatency(_ milliseconds: Int64) throws(ShellError) -> CommandResult {
        _ = try administration(for: "latency")
        ember.latency = milliseconds
        return .done("every message now takes \(milliseconds) ms each way")
    }
}
