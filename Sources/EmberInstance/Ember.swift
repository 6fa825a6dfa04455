import EmberClient
import EmberCore
import EmberServer
import EmberStorage
import EmberWire

#if canImport(Glibc)
import Glibc
#endif

/// An embedded Ember: one server and any number of named clients in one process, joined by the
/// in-process network.
///
/// Everything runs on one engine: the network's queue of messages and timers. Nothing happens
/// until the engine runs: ``flush()`` (until no message is in flight), ``advance(by:)`` (time
/// passes), ``run(until:)``, or a client's `async` function waiting for its answer.
///
/// On a ``ManualClock`` the engine runs in virtual time: when nothing is due it jumps the clock
/// to the next message or timer instead of sleeping, so a 60-second disconnect timeout costs no
/// real time and every run is repeatable. On the system clock it sleeps. Not thread-safe.
public final class Ember {
    /// The local clock (clients); the server's is this one plus ``Server/clockSkew``.
    public let clock: any DatabaseClock
    public let server: Server
    public let network: InProcessNetwork
    /// How long each message takes on new connections, in milliseconds.
    public var latency: Int64 = 0 {
        didSet { for link in links.values { link.latency = latency } }
    }
    /// How long the server takes to notice a silent drop, in milliseconds.
    public var disconnectTimeout: Int64
    /// How clients wait before reconnecting.
    public var reconnectPolicy: ReconnectPolicy

    /// The clock when it is a manual one: the engine then runs in virtual time.
    private let virtualClock: ManualClock?
    private var random: any RandomNumberGenerator
    private var clients: [ClientName: Database] = [:]
    private var links: [ClientName: InProcessLink] = [:]
    private var running = false

    /// Where the data lives.
    public let persistence: Persistence
    /// What opening the database directory and its clients' stores found, in order.
    public private(set) var notices: [StoreNotice] = []
    /// The lock on the database directory, held while the instance lives.
    private var lock: DirectoryLock?

    /// An instance on `clock` (a ``ManualClock`` runs it in virtual time) with randomness from
    /// `random` (push ids, back-off jitter), all in memory.
    public init(
        clock: any DatabaseClock = SystemClock(), random: any RandomNumberGenerator = SystemRandomNumberGenerator(),
        rules: IndexRules = .none, disconnectTimeout: Int64 = 60_000, reconnectPolicy: ReconnectPolicy = .standard
    ) {
        self.clock = clock
        virtualClock = clock as? ManualClock
        self.random = random
        self.disconnectTimeout = disconnectTimeout
        self.reconnectPolicy = reconnectPolicy
        persistence = .memory
        lock = nil
        server = Server(clock: clock, rules: rules)
        network = InProcessNetwork(clock: clock)
    }

    /// An instance kept as `persistence` says: with a database directory, the server starts
    /// from its store there, and each client finds its cache and write queue there by name.
    /// - Throws: ``StoreError`` naming the file when the directory or a store cannot be
    ///   created, opened or read.
    public init(
        persistence: Persistence, clock: any DatabaseClock = SystemClock(),
        random: any RandomNumberGenerator = SystemRandomNumberGenerator(), rules: IndexRules = .none,
        disconnectTimeout: Int64 = 60_000, reconnectPolicy: ReconnectPolicy = .standard
    ) throws(StoreError) {
        self.clock = clock
        virtualClock = clock as? ManualClock
        self.random = random
        self.disconnectTimeout = disconnectTimeout
        self.reconnectPolicy = reconnectPolicy
        self.persistence = persistence
        switch persistence {
        case .memory:
            lock = nil
            server = Server(clock: clock, rules: rules)
        case .directory(let directory, let settings):
            try persistence.createDirectories()
            lock = try DirectoryLock(directory: directory)
            let file = Persistence.serverFile(in: directory)
            if Persistence.isEmptyFile(file) { notices.append(.emptyServerStore(file: file)) }
            let readOnly = !Persistence.isWritable(directory: directory)
            if readOnly { notices.append(.readOnly(directory: directory)) }
            let store = try ServerStore(at: .file(file), durability: settings.durability, readOnly: readOnly)
            server = try Server(clock: clock, rules: rules, store: store)
            if !server.badRows.isEmpty { notices.append(.badRows(file: file, server.badRows)) }
        }
        network = InProcessNetwork(clock: clock)
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
            client.reportStoreError(error)
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
        if case .directory(let directory, let settings) = persistence, !(server.store?.isReadOnly ?? false) {
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
            client = try Database(
                name: name, environment: environment, store: store, startOffline: startOffline, reconnect: reconnectPolicy)
        } else {
            client = Database(name: name, environment: environment, startOffline: startOffline, reconnect: reconnectPolicy)
        }
        clients[name] = client
        return client
    }

    /// The clients, by name.
    public var clientNames: [ClientName] { clients.keys.sorted() }

    /// Kills a client's connection silently: the client notices now and reconnects after its
    /// back-off; the server notices after ``disconnectTimeout`` and then runs the client's
    /// onDisconnect operations.
    public func drop(_ name: ClientName) {
        links[name]?.drop()
    }

    // MARK: Running the engine

    /// Whether a virtual clock drives the engine.
    public var isVirtualTime: Bool { virtualClock != nil }

    /// Runs the engine until no message is in flight (timers due meanwhile fire; later ones
    /// wait): every client has heard the server's answer to everything sent so far.
    public func flush() throws(DatabaseError) {
        try run { network.messagesInFlight == 0 }
    }

    /// Ends the engine's tick: what the server and the clients changed since the last one is
    /// committed to their stores (clients first, so that a write is in its client's queue before
    /// the server's answer to it is durable), and the server sends what it held back for the
    /// commit. Runs whenever no message is due.
    private func endTick() {
        for client in clients.values where client.hasUncommittedChanges { client.commitStore() }
        server.endTick()
    }

    /// Whether nothing is in flight and nothing waits for the end of the tick: every client has
    /// heard the server's answer to everything sent so far (what ``flush()`` waits for).
    public var isSettled: Bool { network.messagesInFlight == 0 && !tickPending }

    /// Whether something waits for the end of the tick.
    private var tickPending: Bool {
        if server.hasUncommittedWork { return true }
        guard case .directory = persistence else { return false }
        // A client whose commit just failed waits for the next tick rather than spinning.
        return clients.values.contains { $0.hasUncommittedChanges && $0.lastStoreError == nil }
    }

    /// Closes the stores, after committing what waits. The instance cannot be used afterwards.
    /// - Throws: ``StoreError`` when a store cannot be closed.
    public func close() throws(StoreError) {
        endTick()
        for name in clients.keys.sorted() { try clients[name]?.closeStore() }
        try server.close()
        lock = nil
    }

    /// Lets `milliseconds` pass, delivering everything due meanwhile, in order.
    public func advance(by milliseconds: Int64) throws(DatabaseError) {
        let target = clock.now() + milliseconds
        try run(until: { false }, deadline: target)
        network.deliverDue()
    }

    /// Runs the engine until `condition` holds.
    /// - Throws: `deadlock` when nothing is left to happen and it does not hold; `reentrant`
    ///   when called from inside the engine (a listener callback).
    public func run(until condition: () -> Bool) throws(DatabaseError) {
        try run(until: condition, deadline: nil)
    }

    /// Runs the engine until `condition` holds, or until the clock reaches `deadline` (then it
    /// returns with `condition` still false; on the system clock it may return before, after
    /// sleeping at most a second).
    /// - Throws: `would_wait_forever` when nothing is left to happen before the deadline (or at
    ///   all, without one); `reentrant_wait` inside the engine.
    public func run(until condition: () -> Bool, deadline: Int64?) throws(DatabaseError) {
        if running { throw Self.reentrant }
        running = true
        defer { running = false }
        while !condition() || tickPending {
            if network.step() { continue }
            if tickPending {
                endTick()
                continue
            }
            guard let next = network.nextDeliveryTime, deadline.map({ next <= $0 }) ?? true else {
                if let deadline { wait(until: deadline); return }
                throw Self.deadlock
            }
            wait(until: next)
        }
    }

    /// Runs the engine until `condition` holds, yielding to other tasks now and then and
    /// sleeping (not blocking) while waiting for the system clock.
    nonisolated(nonsending) public func run(until condition: () -> Bool) async throws(DatabaseError) {
        if running { throw Self.reentrant }
        var steps = 0
        while !condition() || tickPending {
            if Task.isCancelled { throw DatabaseError.other(code: ErrorCode.cancelled, message: "the wait was cancelled") }
            running = true
            let stepped = network.step()
            let ended = !stepped && tickPending
            if ended { endTick() }
            running = false
            if stepped {
                steps += 1
                if steps % 1024 == 0 { await Task.yield() }
                continue
            }
            if ended { continue }
            guard let next = network.nextDeliveryTime else { throw Self.deadlock }
            if let virtualClock {
                virtualClock.advance(to: next)
            } else {
                try? await Task.sleep(for: .milliseconds(max(0, next - clock.now())))
            }
        }
    }

    private func wait(until time: Int64) {
        if let virtualClock {
            virtualClock.advance(to: time)
        } else {
            let milliseconds = time - clock.now()
            if milliseconds > 0 { usleep(UInt32(min(milliseconds, 1_000_000) * 1000)) }
        }
    }

    static let deadlock = DatabaseError.other(
        code: ErrorCode.wouldWaitForever, message: "nothing left to happen can finish this wait (is the client offline?)")
    static let reentrant = DatabaseError.other(
        code: ErrorCode.reentrantWait, message: "cannot wait for the database inside a listener or completion callback")

    // MARK: For the connector

    fileprivate func connect(_ name: ClientName) -> ClientTransport {
        let link = network.connect(latency: latency, silentDropTimeout: disconnectTimeout)
        links[name] = link
        server.accept(link.server)
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
        ember.network.schedule(at: ember.clock.now() + milliseconds, action)
    }

    func run(until condition: () -> Bool) throws(DatabaseError) {
        try ember.run(until: condition)
    }

    nonisolated(nonsending) func run(until condition: () -> Bool) async throws(DatabaseError) {
        try await ember.run(until: condition)
    }
}
