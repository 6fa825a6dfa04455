import EmberClient
import EmberCore
import EmberEngine
import EmberRules
import EmberServer
import EmberStorage
import EmberWire


/// An embedded Ember: one server and any number of named clients in one process, joined by the
/// in-process network, all run by one ``Engine``; or (``Backend/remote(_:)``) named clients of a
/// server in another process, each on a connection of its own.
///
/// Nothing happens until the engine runs: ``flush()`` (until no message is in flight),
/// ``advance(by:)`` (time passes), ``run(until:)``, or a client's `async` function waiting for
/// its answer; each is one wait on the engine.
///
/// On a ``ManualClock`` the engine runs in virtual time: when nothing is due it jumps the clock
/// to the next message or timer instead of sleeping, so a 60-second disconnect timeout costs no
/// real time and every run is repeatable. On the system clock it sleeps. Confined to the
/// engine's thread.
public final class Ember {
    /// The engine: clock, messages and timers, ticks, interruption, callbacks.
    public let engine: Engine
    /// The local clock (clients); the server's is this one plus ``Server/clockSkew``.
    public var clock: any DatabaseClock { engine.clock }
    /// Where the clients' server is.
    public let backend: Backend
    public let network: InProcessNetwork

    /// Where an instance's server is.
    public enum Backend {
        /// In this process, on this engine: every knob (latency, timeouts, clock skew, rules)
        /// is at hand.
        case embedded(Server)
        /// In another process: the clients speak the realtime protocol to it.
        case remote(any RemoteServer)
    }

    /// The embedded server.
    /// - Precondition: the server is embedded (``embeddedServer`` is not `nil`).
    public var server: Server {
        guard let embeddedServer else { preconditionFailure("the server of this Ember is in another process") }
        return embeddedServer
    }

    /// The server, when it is embedded.
    public var embeddedServer: Server? {
        if case .embedded(let server) = backend { return server }
        return nil
    }

    /// What a shell or script may do to the embedded server (`nil`: the server is in another
    /// process): the one way they reach it.
    public var administration: ServerAdministration? {
        embeddedServer.map { ServerAdministration(server: $0, ember: self) }
    }

    /// The server in another process, when the clients connect to one.
    public var remoteServer: (any RemoteServer)? {
        if case .remote(let remote) = backend { return remote }
        return nil
    }
    /// How long each message takes on new connections, in milliseconds.
    public var latency: Int64 = 0 {
        didSet { for link in links.values { link.latency = latency } }
    }
    /// How long the server takes to notice a silent drop, in milliseconds.
    public var disconnectTimeout: Int64
    /// How clients wait before reconnecting.
    public var reconnectPolicy: ReconnectPolicy

    private var random: any RandomNumberGenerator
    private var clients: [ClientName: Database] = [:]
    private var links: [ClientName: InProcessLink] = [:]
    private var remoteLinks: [ClientName: any RemoteConnection] = [:]
    /// Each client's current server connection.
    private var clientConnections: [ClientName: ConnectionID] = [:]
    /// Called with every realtime protocol message between a client and the server as it
    /// crosses (`trace on`): the client, the direction, and the message's text as a WebSocket
    /// carries it (an embedded client's messages are encoded for it, only while it is set).
    public var onProtocolMessage: ((ClientName, ProtocolDirection, String) -> Void)?
    /// Called with every rules check the server makes for a client (`rules trace on`); the
    /// server reports checks only while it is set.
    public var onRuleCheck: ((ClientName, RuleCheck) -> Void)? {
        didSet {
            guard let server = embeddedServer else { return }
            // Only while tracing: finding the client is a search of the clients.
            server.onRuleCheck = onRuleCheck == nil ? nil : { [unowned self] check in
                guard let name = clientConnections.first(where: { $0.value == check.connection })?.key else { return }
                onRuleCheck?(name, check)
            }
        }
    }
    /// The token every client signs in with when it is created (`ember --connect --auth`).
    private let initialToken: AuthToken?

    /// Where the data lives.
    public let persistence: Persistence
    /// What opening the database directory and its clients' stores found, in order.
    public private(set) var notices: [StoreNotice] = []
    /// The lock on the database directory, held while the instance lives.
    private var lock: DirectoryLock?
    /// Whether a commit of the clients' deferred store changes is scheduled.
    var storeCommitScheduled = false
    /// Whether the scheduled commit left a client with a write in flight to the end of the
    /// tick, which then hands that client's deferred changes to its store's queue.
    var storeCommitDue = false
    /// How long a client's store changes that need not be on disk at the end of the tick (the
    /// cache, answered writes leaving the queue) may wait for their commit, in milliseconds:
    /// one commit then carries many ticks' changes.
    public static let deferredStoreCommitDelay: Int64 = 20

    /// An instance on `clock` (a ``ManualClock`` runs it in virtual time) with randomness from
    /// `random` (push ids, back-off jitter), all in memory. With `observesInterruptSignal`,
    /// Ctrl-C (``InterruptSignal``) interrupts its waits.
    public init(
        clock: any DatabaseClock = SystemClock(), random: any RandomNumberGenerator = SystemRandomNumberGenerator(),
        rules: Ruleset = .open, disconnectTimeout: Int64 = 60_000, reconnectPolicy: ReconnectPolicy = .standard,
        observesInterruptSignal: Bool = false
    ) {
        engine = Engine(clock: clock, observesInterruptSignal: observesInterruptSignal)
        self.random = random
        self.disconnectTimeout = disconnectTimeout
        self.reconnectPolicy = reconnectPolicy
        persistence = .memory
        lock = nil
        initialToken = nil
        backend = .embedded(Server(clock: clock, rules: rules))
        network = InProcessNetwork(engine: engine)
        engine.add(self)
    }

    /// An instance kept as `persistence` says: with a database directory, the server starts
    /// from its store there, and each client finds its cache and write queue there by name.
    /// With `rules`, those rules are put in force and saved with the data; without, the rules
    /// saved there last (or the open rules).
    /// - Throws: ``StoreError`` naming the file when the directory or a store cannot be
    ///   created, opened or read.
    public init(
        persistence: Persistence, clock: any DatabaseClock = SystemClock(),
        random: any RandomNumberGenerator = SystemRandomNumberGenerator(), rules: Ruleset? = nil,
        disconnectTimeout: Int64 = 60_000, reconnectPolicy: ReconnectPolicy = .standard, observesInterruptSignal: Bool = false
    ) throws(StoreError) {
        engine = Engine(clock: clock, observesInterruptSignal: observesInterruptSignal)
        self.random = random
        self.disconnectTimeout = disconnectTimeout
        self.reconnectPolicy = reconnectPolicy
        self.persistence = persistence
        initialToken = nil
        switch persistence {
        case .memory:
            lock = nil
            backend = .embedded(Server(clock: clock, rules: rules ?? .open))
        case .directory(let directory, let settings):
            try persistence.createDirectories()
            lock = try DirectoryLock(directory: directory)
            let file = Persistence.serverFile(in: directory)
            if Persistence.isEmptyFile(file) { notices.append(.emptyServerStore(file: file)) }
            let readOnly = !Persistence.isWritable(directory: directory)
            if readOnly { notices.append(.readOnly(directory: directory)) }
            let store = try ServerStore(at: .file(file), durability: settings.durability, readOnly: readOnly)
            let server = try Server(clock: clock, rules: rules, store: store, cacheSize: settings.serverCacheSize)
            backend = .embedded(server)
        }
        network = InProcessNetwork(engine: engine)
        engine.add(self)
        if case .directory(let directory, _) = persistence, let server = embeddedServer {
            // The watermark of a writer whose client here never stored a queued write is left out
            // of the commits: nothing of that writer can be replayed after a restart.
            server.storesWatermark = { [unowned self] writer in
                clientDatabases.first { $0.writer == writer }?.hasStoredSaves ?? true
            }
            // The server reads its store a location at a time: bad rows are found as they are read.
            let file = Persistence.serverFile(in: directory)
            server.onBadRows = { [unowned self] rows in notices.append(.badRows(file: file, rows)) }
        }
    }

    /// Clients of `remote`, a server in another process, each on a connection of its own.
    ///
    /// With a directory, the clients keep their caches and write queues there by name (one
    /// directory per server: see `ember --connect`). When another process holds that directory,
    /// the clients keep theirs in memory, and a notice says so.
    /// - Throws: ``StoreError`` when the directory cannot be created.
    /// With `token`, every client signs in with it when it is created.
    public init(
        remote: any RemoteServer, persistence: Persistence, signIn token: AuthToken? = nil, clock: any DatabaseClock = SystemClock(),
        random: any RandomNumberGenerator = SystemRandomNumberGenerator(), reconnectPolicy: ReconnectPolicy = .standard,
        observesInterruptSignal: Bool = false
    ) throws(StoreError) {
        engine = Engine(clock: clock, observesInterruptSignal: observesInterruptSignal)
        self.random = random
        disconnectTimeout = 60_000
        self.reconnectPolicy = reconnectPolicy
        backend = .remote(remote)
        initialToken = token
        switch persistence {
        case .memory:
            lock = nil
            self.persistence = .memory
        case .directory(let directory, _):
            try persistence.createDirectories()
            do {
                lock = try DirectoryLock(directory: directory)
                self.persistence = persistence
            } catch where error.code == ErrorCode.databaseInUse {
                lock = nil
                self.persistence = .memory
                notices.append(.cacheInUse(directory: directory))
            }
        }
        network = InProcessNetwork(engine: engine)
        engine.add(self)
    }

    /// The server connection of the client `name`, when the server is embedded and the
    /// client has connected.
    public func connectionID(of name: ClientName) -> ConnectionID? { clientConnections[name] }

    /// What the embedded server holds for the client `name`'s connection (`nil`: the server is
    /// in another process, or the client is not connected).
    public func serverInspection(of name: ClientName) -> ServerConnectionInspection? {
        guard let server = embeddedServer, let id = clientConnections[name], server.connectionIDs.contains(id) else { return nil }
        return ServerConnectionInspection(
            connection: id, auth: server.auth(of: id), listens: server.listens(of: id), onDisconnect: server.onDisconnectOperations(of: id))
    }

    // MARK: Rules

    /// Puts `rules` in force (saved with the data when there is a database directory); the
    /// listens they no longer allow are revoked.
    /// - Returns: how many listens were revoked.
    /// - Throws: ``StoreError`` when they cannot be saved; the rules in force stay as they were.
    @discardableResult
    public func setRules(_ rules: Ruleset) throws(StoreError) -> Int {
        guard let server = embeddedServer else {
            throw StoreError("the rules of a server in another process are not set from here", code: ErrorCode.needsEmbeddedServer)
        }
        return try server.setRules(rules)
    }

    /// The last rules check made for an operation of the client `name` on its current
    /// connection, if any.
    public func lastRuleCheck(of name: ClientName) -> RuleCheck? {
        guard let server = embeddedServer else { return nil }
        return clientConnections[name].flatMap(server.lastRuleCheck(of:))
    }

    /// The client named `name`, created (and connecting, unless `startOffline`) on first use.
    /// With a database directory it starts from its store there; a store that cannot be opened
    /// leaves the client in memory, with the reason in ``Database/lastStoreError``.
    public func client(_ name: ClientName, startOffline: Bool = false) -> Database {
        if let client = clients[name] { return client }
        do {
            return try openClient(name, startOffline: startOffline)
        } catch {
            let client = Database(
                name: name, environment: ClientConnector(ember: self, name: name), startOffline: startOffline,
                reconnect: reconnectPolicy)
            client.reportStoreError(error.databaseError)
            clients[name] = client
            return client
        }
    }

    /// The client named `name` (validated), created on first use.
    /// - Throws: `invalid_client_name`, or `storage_error` when its store cannot be opened.
    public func client(named name: String, startOffline: Bool = false) throws(DatabaseError) -> Database {
        let name = try ClientName(validating: name)
        if let client = clients[name] { return client }
        do {
            return try openClient(name, startOffline: startOffline)
        } catch {
            throw .other(code: ErrorCode.storageError, message: error.message)
        }
    }

    /// Creates the client `name`, from its store when there is a database directory.
    private func openClient(_ name: ClientName, startOffline: Bool) throws(StoreError) -> Database {
        let environment = ClientConnector(ember: self, name: name)
        let client: Database
        if case .directory(let directory, let settings) = persistence, !(embeddedServer?.store?.isReadOnly ?? false) {
            let file = Persistence.clientFile(name.rawValue, in: directory)
            func open() throws(StoreError) -> ClientStore {
                try ClientStore(
                    at: .file(file), durability: settings.durability, cacheSizeLimit: settings.clientCacheSize,
                    now: clock.now(), newIdentity: String(randomNumber(), radix: 36))
            }
            let store: ClientStore
            do {
                store = try open()
            } catch where error.isUnreadable {
                // Never thrown away, never silently replaced: kept aside under a name that says
                // so, and reported.
                let aside = try Persistence.setAside(file, now: clock.now())
                notices.append(.unreadableClientStore(client: name, file: file, setAside: aside, reason: error.message))
                store = try open()
            }
            do {
                client = try Database(
                    name: name, environment: environment, store: store, startOffline: startOffline, reconnect: reconnectPolicy)
            } catch {
                throw StoreError(error.message, code: error.code)
            }
        } else {
            client = Database(name: name, environment: environment, startOffline: startOffline, reconnect: reconnectPolicy)
        }
        clients[name] = client
        if let initialToken, client.authState.token != initialToken { client.signIn(initialToken) }
        return client
    }

    deinit {
        engine.remove(self)
    }

    /// The clients, by name.
    public var clientNames: [ClientName] { clients.keys.sorted() }

    /// The store the client `name` keeps its cache and queue in, if it has one (the instance
    /// opened it; tools and tests reach it here).
    public func clientStore(_ name: ClientName) -> ClientStore? { clients[name]?.store }

    /// The open clients, in no particular order.
    var clientDatabases: Dictionary<ClientName, Database>.Values { clients.values }

    /// Kills a client's connection silently: the client notices now and reconnects after its
    /// back-off; the server notices after ``disconnectTimeout`` and then runs the client's
    /// onDisconnect operations.
    public func drop(_ name: ClientName) {
        links[name]?.drop()
        remoteLinks[name]?.drop()
    }

    // MARK: Running the engine

    /// Whether a virtual clock drives the engine.
    public var isVirtualTime: Bool { engine.isVirtualTime }

    /// Runs the engine until no message is in flight (timers due meanwhile fire; later ones
    /// wait): every client has heard the server's answer to everything sent so far.
    /// - Throws: `interrupted`, or `reentrant_wait` inside the engine's own work.
    public func flush() throws(DatabaseError) {
        try engine.wait(until: { engine.messagesInFlight == 0 }).check()
    }

    /// Whether nothing is in flight and nothing waits for the end of the tick: every client has
    /// heard the server's answer to everything sent so far (what ``flush()`` waits for).
    public var isSettled: Bool { engine.messagesInFlight == 0 && !engine.isTickPending }

    /// Closes the stores, after committing what waits. The instance cannot be used afterwards.
    /// - Throws: ``StoreError`` when a store cannot be closed.
    public func close() throws(StoreError) {
        endTick()
        for name in clients.keys.sorted() {
            do {
                try clients[name]?.closeStore()
            } catch {
                throw StoreError(error.message, code: error.code)
            }
        }
        for link in remoteLinks.values { link.transport.close() }
        remoteLinks = [:]
        try embeddedServer?.close()
        lock = nil
    }

    /// Lets `milliseconds` pass, delivering everything due meanwhile, in order.
    /// - Throws: `interrupted`, or `reentrant_wait` inside the engine's own work.
    public func advance(by milliseconds: Int64) throws(DatabaseError) {
        try engine.advance(by: milliseconds).check()
    }

    /// Runs the engine until `condition` holds.
    /// - Throws: `would_wait_forever` when nothing is left to happen and it does not hold;
    ///   `reentrant_wait` inside the engine's own work (a listener callback); `interrupted`.
    public func run(until condition: () -> Bool) throws(DatabaseError) {
        try engine.wait(until: condition).check()
    }

    /// Runs the engine until `condition` holds, or until the clock reaches `deadline` (then it
    /// returns with `condition` still false).
    /// - Throws: as ``run(until:)``.
    public func run(until condition: () -> Bool, deadline: Int64?) throws(DatabaseError) {
        try engine.wait(until: condition, deadline: deadline).check()
    }

    /// Runs the engine until `condition` holds, yielding to other tasks now and then and
    /// sleeping (not blocking) while waiting for the system clock.
    /// - Throws: as ``run(until:)``; a cancelled task's wait throws `cancelled`.
    nonisolated(nonsending) public func run(until condition: () -> Bool) async throws(DatabaseError) {
        let outcome = await engine.wait(until: condition)
        if outcome == .interrupted && Task.isCancelled {
            throw DatabaseError.other(code: ErrorCode.cancelled, message: "the wait was cancelled")
        }
        try outcome.check()
    }

    // MARK: For the connector

    fileprivate func connect(_ name: ClientName) -> ClientTransport {
        guard let server = embeddedServer else {
            let link = remoteServer!.connect(on: engine)
            remoteLinks[name] = link
            link.onFrame = { [unowned self] direction, text in onProtocolMessage?(name, direction, text) }
            return link.transport
        }
        let link = network.connect(latency: latency, silentDropTimeout: disconnectTimeout)
        links[name] = link
        link.onCrossing = { [unowned self] crossing in
            guard let trace = onProtocolMessage else { return }
            switch crossing {
            case .toServer(let message): trace(name, .toServer, RealtimeClientSession.text(of: message, speaksEmber: true))
            case .toClient(let message): trace(name, .toClient, RealtimeCodec.encode(message))
            }
        }
        clientConnections[name] = server.accept(link.server)
        return link.client
    }

    fileprivate func randomNumber() -> UInt64 { random.next() }
}

/// A client's view of the instance: its ``ClientEnvironment``.
private final class ClientConnector: ClientEnvironment {
    unowned let ember: Ember
    let name: ClientName

    init(ember: Ember, name: ClientName) {
        self.ember = ember
        self.name = name
    }

    var clock: any DatabaseClock { ember.clock }

    func randomNumber() -> UInt64 { ember.randomNumber() }

    func connect() -> ClientTransport { ember.connect(name) }

    func schedule(after milliseconds: Int64, _ action: @escaping () -> Void) {
        ember.engine.schedule(after: milliseconds, .timer, action)
    }

    func post(_ callback: @escaping () -> Void) {
        ember.engine.post(callback)
    }

    func deliverPosted() {
        ember.engine.deliverPosted()
    }

    func run(until condition: () -> Bool) throws(DatabaseError) {
        try ember.run(until: condition)
    }

    nonisolated(nonsending) func run(until condition: () -> Bool) async throws(DatabaseError) {
        try await ember.run(until: condition)
    }
}
