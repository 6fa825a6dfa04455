import EmberCore
import EmberRules
import EmberStorage
import EmberWire

/// The authoritative database: one JSON tree, the clients connected to it, what each listens
/// to, and what each wants done when its connection ends.
///
/// The server sends each listen exactly the changes it needs: a location's own data for a
/// default listen, and for a filtered query (tagged) only the children entering, changing in or
/// leaving its window. Every write is validated (a server never trusts a client), resolves its
/// server values with the server's clock (which can be skewed), and a multi-path update lands
/// whole or not at all. Confined to the engine, like the connections it serves.
///
/// The security rules (``rules``) guard every operation a connection asks for, as the
/// connection's user (``ConnectionAuth``): a listen or a get is a read of its location with its
/// query; a put, a merge (as a whole), each attempt of a transaction and an onDisconnect
/// registration are writes, checked with server values resolved; an onDisconnect operation is
/// checked again when it fires. When the rules or a connection's user change, the listens no
/// longer allowed are revoked. Calls made directly on the server (``put(_:at:hash:)``) act as an
/// administrator, to whom rules do not apply.
///
/// With a ``ServerStore`` the server writes through to SQLite in group commits: everything it
/// does between two calls of ``endTick()`` (the engine calls it whenever no message is due) is
/// one transaction, and every message it owes is held until that transaction commits. So no
/// write is acknowledged, and no listener hears of it, before it is in the store (and, with
/// `full` durability, on disk). A commit that fails undoes the tick: the tree goes back, its
/// writes are refused with `storage_error`, and listeners get the data as it is again.
///
/// The server is a thin host around its core (``ServerCore``), which decides what every request
/// does and returns it as actions. The host owns what the core does not: each connection's
/// transport, the tick's hold-and-release (``ServerTick``), the commit and its undo, eviction,
/// and the callbacks the shell and `ember serve` watch.
public final class Server {
    /// The state and the decisions: every request goes through it.
    private var core: ServerCore
    /// The data (the core's pager over the store): what the host commits, undoes and evicts.
    private let tree: ServerTree
    /// The transport of each open connection.
    private var transports: [ConnectionID: any Transport<ServerMessage, ClientMessage>] = [:]
    /// Milliseconds added to the clock: a skewed server clock, to show
    /// `.info/serverTimeOffset` at work.
    public var clockSkew: Int64 {
        get { core.clockSkew }
        set { core.clockSkew = newValue }
    }
    /// The security rules in force: open (everyone may read and write) until rules are loaded.
    public var rules: Ruleset { core.rules }
    /// How often each rule was evaluated, and how, since the rules were put in force.
    public var coverage: RuleCoverage { core.authorizer.coverage }
    /// Whether an administrator's credential (`gauth`) is taken. By default only `owner` is,
    /// the token Firebase's Admin SDKs send to an emulator (firebase-admin-node
    /// `EmulatorAdminTokenProvider`). The emulator takes any string; Ember deliberately does
    /// not, so that a client cannot make itself an administrator with a made-up credential.
    public var acceptsAdminCredential: (String) -> Bool {
        get { core.acceptsAdminCredential }
        set { core.acceptsAdminCredential = newValue }
    }
    /// The answer to a `gauth` whose credential is not taken (here, or by a network edge that
    /// takes another credential: `ember serve --admin-token`).
    public static let refusedAdminCredential = DatabaseError.other(
        code: ErrorCode.invalidToken, message: "the server does not take this administrator credential")
    /// Called with every rules check made for a connection while rules are loaded (not with the
    /// open rules): what `rules trace` prints. Each connection keeps its last check too
    /// (``lastRuleCheck(of:)``).
    public var onRuleCheck: ((RuleCheck) -> Void)? {
        // The core makes a `RuleCheck` for each check only while someone listens.
        didSet { core.reportsRuleChecks = onRuleCheck != nil }
    }
    /// When the earliest token a connection signed in with expires (server time), or `nil`
    /// when none will: when ``revokeExpiredTokens()`` is next due. It may be early (that
    /// connection signed out since); it is never late.
    public var nextTokenExpiry: Int64? { core.nextTokenExpiry }
    /// The rows of the store left out of the locations read so far, because they would not
    /// pass a write's checks (each location is read when it is first used).
    public var badRows: [BadRow] { tree.badRows }
    /// Called with the bad rows of each location read that had some.
    public var onBadRows: (([BadRow]) -> Void)? {
        get { tree.onBadRows }
        set { tree.onBadRows = newValue }
    }
    /// Where the tree is kept durably, if anywhere.
    public let store: ServerStore?
    /// What the current tick owes, while a store is attached.
    private var tick = ServerTick()
    /// The buffer of the core's actions, kept from one step to the next without a store.
    private var spareActions: [ServerAction] = []
    /// The last commit that failed, if any: the writes of its tick were refused.
    public private(set) var lastStoreError: StoreError?
    /// Whether the last commit failed (its refusals may not be in the store).
    private var lastCommitFailed = false
    /// Called with each failed commit (after its tick was undone).
    public var onStoreError: ((StoreError) -> Void)?
    /// Whether a commit stores a writer's new watermark (`nil`, the default: every writer's).
    /// The host whose clients live in this process says `false` for the writer of a client whose
    /// own store never held a queued write: none of that writer's writes can be sent again
    /// after a restart (a write is replayed only from a client's stored queue, and a session's
    /// writer is new each run), so its durable watermark would never be read, and leaving it
    /// out spares each commit the writers table's page (a quarter of a `normal` durable write).
    /// The ledger in memory keeps it either way, for the replays of a reconnection.
    public var storesWatermark: ((String) -> Bool)?
    /// When set, every write is refused with `permission_denied` and this reason once the
    /// rules allowed it, the administrator's too: `ember serve` answers a namespace that does
    /// not exist with such a server, empty, so that a request that may not create one reads
    /// it as an empty database and writes nothing to it.
    public var writesRefused: String? {
        get { core.writesRefused }
        set { core.writesRefused = newValue }
    }

    /// A server on `clock` guarded by `rules` (which also declare its indexes), all in memory.
    public init(clock: any DatabaseClock = SystemClock(), rules: Ruleset = .open) {
        store = nil
        tree = ServerTree(store: nil, capacity: .max)
        core = ServerCore(tree: tree, clock: clock, rules: rules)
    }

    /// The default budget of the server's tree in memory (``cacheSize``): 64 MB of stored rows.
    public static let defaultCacheSize = 64 << 20

    /// A server that starts from the tree and the rules in `store` and writes through to it.
    /// Its tree is read a location at a time, as it is used: opening it reads no data.
    /// - Parameter rules: rules to put in force (and save) instead of the saved ones.
    /// - Parameter cacheSize: how many bytes of stored rows the tree keeps in memory before
    ///   it evicts what no listen holds.
    /// - Throws: ``StoreError`` when the store cannot be read, or its saved rules no longer
    ///   compile.
    public init(
        clock: any DatabaseClock = SystemClock(), rules: Ruleset? = nil, store: ServerStore, cacheSize: Int = Server.defaultCacheSize
    ) throws(StoreError) {
        var inForce = Ruleset.open
        if let rules {
            if !store.isReadOnly { try store.saveRules(rules.source) }
            inForce = rules
        } else if let saved = try store.loadRules() {
            do {
                inForce = try Ruleset(text: saved)
            } catch {
                throw StoreError("the rules saved in the server's store at \(store.location) do not compile: \(error.message)")
            }
        }
        self.store = store
        store.startLoadingByLocation()
        tree = ServerTree(store: store, capacity: cacheSize)
        core = ServerCore(tree: tree, clock: clock, rules: inForce)
        core.ledger.restore(try store.loadLedger())
        for (key, failure) in try store.loadAnswers() {
            core.answeredWrites.record(failure.map(AckStatus.failed) ?? .ok(), for: key)
        }
    }

    /// How many indexes have been built (each the first time a query needs it).
    public var builtIndexCount: Int { core.indexes.count }

    /// How many bytes of stored rows the tree keeps in memory before it evicts what no listen
    /// holds (without a store, everything is in memory).
    public var cacheSize: Int {
        get { tree.capacity }
        set { tree.capacity = newValue }
    }

    /// What the tree holds in memory now.
    public var cacheUse: ServerCacheUse {
        ServerCacheUse(
            bytes: tree.loadedBytes, regions: tree.regionCount, loads: tree.loadCount, evictions: tree.evictionCount,
            isPaged: store != nil)
    }

    /// The server's time in milliseconds: its clock plus the skew.
    public var serverTime: Int64 { core.serverTime }

    /// The open connections.
    public var connectionIDs: [ConnectionID] { core.connections.keys.sorted() }

    /// The onDisconnect operations queued for a connection.
    public func onDisconnectOperations(of connection: ConnectionID) -> [OnDisconnectOperation] {
        core.connections[connection]?.onDisconnect ?? []
    }

    /// The last rules check made for a request of `connection` (`nil`: none since it opened,
    /// or the rules are open), for `explain`.
    public func lastRuleCheck(of connection: ConnectionID) -> RuleCheck? {
        core.lastRuleCheck(of: connection)
    }

    /// Who a connection acts as.
    public func auth(of connection: ConnectionID) -> ConnectionAuth {
        core.connections[connection]?.auth ?? .none
    }

    /// The queries a connection listens to, by location.
    public func listens(of connection: ConnectionID) -> [QuerySpec] {
        (core.connections[connection]?.listens.keys).map { $0.sorted { $0.path < $1.path } } ?? []
    }

    /// How many listens a connection holds (for the server's own tests).
    func listenCount(of connection: ConnectionID) -> Int {
        core.connections[connection]?.listens.count ?? 0
    }

    // MARK: Connections

    /// Serves a new connection: sends the handshake and handles what arrives.
    @discardableResult
    public func accept(_ transport: any Transport<ServerMessage, ClientMessage>) -> ConnectionID {
        // The transport is known before the handshake is sent.
        let id = core.nextConnectionID
        transports[id] = transport
        transport.onEvent = { [unowned self] event in
            switch event {
            case .received(let message): handle(message, from: id)
            case .closed: connectionEnded(id)
            }
        }
        step { core, actions in _ = core.openConnection(into: &actions) }
        return id
    }

    /// Closes a connection from the server's side; its onDisconnect operations run.
    public func close(_ id: ConnectionID) {
        guard let transport = transports[id] else { return }
        transport.close()
        connectionEnded(id)
    }

    private func connectionEnded(_ id: ConnectionID) {
        guard transports.removeValue(forKey: id) != nil else { return }
        step { core, actions in core.connectionEnded(id, into: &actions) }
    }

    private func handle(_ message: ClientMessage, from id: ConnectionID) {
        step { core, actions in core.handle(message, from: id, into: &actions) }
    }

    // MARK: Rules

    /// Puts `rules` in force: saved with the data first (unless the store is read-only; they
    /// then hold until the server ends), then the listens they no longer allow are revoked
    /// (their clients' listeners are cancelled with `permission_denied`). The coverage counts
    /// start again, and the indexes follow the new `.indexOn`.
    /// - Returns: how many listens were revoked.
    /// - Throws: ``StoreError`` when they cannot be saved; the rules in force stay as they were.
    @discardableResult
    public func setRules(_ rules: Ruleset) throws(StoreError) -> Int {
        if let store, !store.isReadOnly { try store.saveRules(rules.source) }
        if let store, !store.isReadOnly {
            // The store keeps only what the rules declare (a failed drop keeps an index
            // exact, only kept for nothing).
            for index in store.storedIndexes where !rules.indexes(at: index.location).contains(index.order) {
                try? store.dropIndex(index)
            }
        }
        return step { core, actions in core.setRules(rules, into: &actions) }
    }

    /// Revokes the sign-in of every connection whose token has expired, as its next request
    /// would: `expired_token` is sent (the realtime protocol's `ac`, an event stream's
    /// `auth_revoked`) and the listens its user may no longer read are revoked. A connection
    /// that sends nothing (a listener kept alive by keep-alives) is revoked at its token's
    /// expiry, not at its next request. Sets ``nextTokenExpiry`` anew.
    public func revokeExpiredTokens() {
        step { core, actions in core.revokeExpiredTokens(into: &actions) }
    }

    /// Whether the rules refuse `auth` every write at and below `path`, whatever is written
    /// (``Ruleset/refusesEveryWrite(atOrBelow:auth:now:data:)``): a request that can only be
    /// refused need not be read.
    public func refusesEveryWrite(atOrBelow path: Path, as auth: ConnectionAuth) -> Bool {
        core.authorizer.refusesEveryWrite(atOrBelow: path, as: auth, at: core.serverTime, over: tree)
    }

    // MARK: Actions

    /// Runs one step of the core and does what it asked. With a store, the core appends its
    /// actions straight to the tick's (nothing is copied): the messages wait there for the
    /// commit, and the rest is done at once (``performHeld(from:)``). Without one, into a buffer
    /// kept for the next step, each message sent at once (``perform(_:)``).
    private func step<Answer, Failure: Error>(
        _ body: (inout ServerCore, inout [ServerAction]) throws(Failure) -> Answer
    ) throws(Failure) -> Answer {
        if store != nil {
            let start = tick.held.count
            defer { performHeld(from: start) }
            return try body(&core, &tick.held)
        }
        // A step started by one of this step's messages (a transport that answers at once)
        // finds the buffer taken and makes its own.
        var actions = spareActions
        spareActions = []
        defer {
            perform(actions)
            actions.removeAll(keepingCapacity: true)
            if actions.capacity > spareActions.capacity { spareActions = actions }
        }
        return try body(&core, &actions)
    }

    /// Does what the core asked, without a store: each message is sent now; each rules check is
    /// reported.
    private func perform(_ actions: [ServerAction]) {
        send(actions, reportingChecks: true)
    }

    /// Sends each message of `actions`, in order, to its connection's transport if it is still
    /// open, and reports the rules checks among them when `reportingChecks` (held actions had
    /// theirs reported when they were made). By index, each action read once: its parts are
    /// bound where they are sent, not the whole action copied and passed on.
    private func send(_ actions: [ServerAction], reportingChecks: Bool) {
        for index in actions.indices {
            switch actions[index] {
            case .update(let id, let message), .send(let id, let message):
                transports[id]?.send(message)
            case .writeAnswer(let id, let requestID, let status, _):
                transports[id]?.send(.ack(requestID: requestID, status: status))
            case .getAnswer(let id, let requestID, _, let result):
                transports[id]?.send(.getResult(requestID: requestID, result: result))
            case .ruleChecked(let check):
                if reportingChecks { onRuleCheck?(check) }
            case .changed, .recordLedger, .recordAnswer:
                break
            }
        }
    }

    /// Does what the core asked of the tick's actions from `start` on, with a store: the
    /// messages stay held for the commit; each change is marked in the store and each ledger
    /// entry kept for it; each rules check is reported.
    private func performHeld(from start: Int) {
        var index = start
        while index < tick.held.count {
            switch tick.held[index] {
            case .update, .writeAnswer, .getAnswer, .send:
                break
            case .changed(let path):
                tick.wrote = true
                store?.markChanged(path)
            case .recordLedger(let changes):
                store?.recordLedger(changes)
            case .recordAnswer(let key, let failure):
                store?.recordAnswer(key, failure: failure)
            case .ruleChecked(let check):
                onRuleCheck?(check)
            }
            index += 1
        }
    }

    // MARK: Ticks

    /// Whether the current tick holds writes or messages that wait for ``endTick()``.
    public var hasUncommittedWork: Bool { !tick.isEmpty }

    /// Ends the current tick: commits its changes in one transaction, then sends every message
    /// held meanwhile. If the commit fails, the tick is undone instead: the tree goes back to
    /// what it was, its writes are refused with `storage_error`, and connections that were to
    /// hear of them get their listens' data again. Without a store, nothing waits here.
    ///
    /// Then, with the tick committed, the tree evicts what no listen holds when it is over its
    /// budget (``cacheSize``).
    /// - Returns: whether the store holds everything answered so far (the tick committed, or
    ///   there was nothing to commit); `false` without a store or when the commit failed.
    @discardableResult
    public func endTick() -> Bool {
        guard let store else { return false }
        guard !tick.isEmpty else {
            evictIfNeeded()
            return !lastCommitFailed
        }
        let ended = tick
        tick = ServerTick()
        let shapes = tree.endChanges()
        do {
            try store.commit(
                tree.root, shapes: shapes.isEmpty ? nil : { shapes.shape(at: $0) }, isLoaded: tree.isLoaded,
                emptied: { shapes.wasEmptied($0) },
                storingWatermark: storesWatermark)
        } catch {
            store.discardChanges()
            // What the tick wrote is read again from the store, which the failed commit left as
            // it was.
            tree.undo(shapes) { path in core.indexes.drop(touching: path) }
            var actions: [ServerAction] = []
            core.undo(ended.held, treeRestored: !shapes.isEmpty, because: error, into: &actions)
            // Nothing of the undo is held: its refusals go to the store, its messages now.
            for action in actions {
                switch action {
                case .recordLedger(let changes): store.recordLedger(changes)
                case .recordAnswer(let key, let failure): store.recordAnswer(key, failure: failure)
                default: break
                }
            }
            send(actions, reportingChecks: false)
            // The refusals are kept with the next commit; try to make them durable now.
            try? store.commitLedger()
            lastStoreError = error
            lastCommitFailed = true
            onStoreError?(error)
            return false
        }
        lastCommitFailed = false
        send(ended.held, reportingChecks: false)
        evictIfNeeded()
        return true
    }

    /// Whether the server has answered the keyed write `key` (applied or refused), as its ledger
    /// says: after an ``endTick()`` that returned `true`, an answered write is in the store.
    /// - Complexity: O(1) on average.
    public func hasAnswered(_ key: WriteKey) -> Bool { core.ledger.answer(for: key) != nil }

    /// Evicts the least recently used locations no listen holds, when the tree is over its
    /// budget; the indexes built on them go with them.
    private func evictIfNeeded() {
        guard tree.loadedBytes > tree.capacity else { return }
        tree.evict(keeping: core.retention(of:)) { path in core.indexes.drop(touching: path) }
    }

    /// Ends the tick and closes the store.
    public func close() throws(StoreError) {
        endTick()
        try store?.close()
    }

    // MARK: Reading

    /// The data at `path`.
    /// - Complexity: O(d log n).
    /// Reads the location from the store first when it is not in memory; a read that fails
    /// gives what memory holds (see ``load(_:)`` for the failure).
    public func value(at path: Path) -> Node { tree.node(at: path) }

    /// Makes the data at `path` whole in memory, reading it from the store if it is not.
    /// - Returns: `storage_error` when the store cannot be read.
    public func load(_ path: Path) -> DatabaseError? { core.load(path) }

    /// What a one-off read of `query` returns: from the index the store keeps when the rules
    /// declare the query's value or child order and its location is not in memory, else from
    /// the location loaded.
    /// - Returns: `storage_error` when the store cannot be read.
    public func read(_ query: QuerySpec) -> Result<Node, DatabaseError> { core.read(query) }

    /// The data a query returns: the whole location, or the children in its window.
    /// - Complexity: O(log n + k) for k children by key or priority, or by a value or child
    ///   order the rules index; O(n log k) for an unindexed value or child order (a scan).
    public func data(for query: QuerySpec) -> Node { core.data(for: query) }

    // MARK: Writing

    /// Replaces the value at `path`, as an administrator (the rules do not apply).
    /// - Parameter hash: when given, the write happens only if the current value has this hash.
    /// - Throws: `invalid_*` errors for bad data, `datastale` when the hash no longer matches.
    public func put(_ node: Node, at path: Path, hash: String?) throws(DatabaseError) {
        try step { (core, actions) throws(DatabaseError) in try core.put(node, at: path, hash: hash, as: .admin, by: nil, into: &actions) }
    }

    /// Sets several paths below `path` at once, as an administrator: all land or none.
    /// - Throws: as ``put(_:at:hash:)``, and `invalid_value` when one changed path is an
    ///   ancestor of another.
    public func merge(_ changes: [WireChange], at path: Path) throws(DatabaseError) {
        try step { (core, actions) throws(DatabaseError) in try core.merge(changes, at: path, as: .admin, by: nil, into: &actions) }
    }

    // MARK: Importing

    /// Whether ``importStreaming(at:producing:checkpoint:)`` may import at `path` for
    /// `connection` (`nil`: the administrator): the server keeps a store, and the rules grant
    /// the write whatever is written (a `.write` on the way down holds without reading
    /// `newData`, and no `.validate` checks the location). Otherwise an import is a write like
    /// any other.
    public func importsStreaming(at path: Path, by connection: ConnectionID?) -> Bool {
        guard let store, !store.isReadOnly, core.writesRefused == nil else { return false }
        return core.authorizer.grantsImport(at: path, as: core.auth(of: connection), at: core.serverTime, over: tree)
    }

    /// Replaces the data at `path` with the pieces `produce` delivers (an ``ExportReader``'s, on a
    /// thread of its own), written into the store as they come, in one transaction: all of it,
    /// or nothing when `produce` or `checkpoint` throws (bad data, Ctrl-C) or the process dies.
    /// The tick is committed first; the data in memory at, above and below `path` is dropped
    /// (it is read again when used), and every listen there gets its data again, as after any
    /// write.
    ///
    /// Deliberately not a write through a client: the data never sits whole in memory (a 1 GB
    /// export would take tens of GB as one write). Check ``importsStreaming(at:by:)`` first.
    /// - Returns: how many rows were written.
    /// - Throws: what `produce` throws; `storage_error` when the store fails.
    public func importStreaming(
        at path: Path, producing produce: @escaping @Sendable (_ deliver: (ExportReader.Piece, _ offset: Int) throws -> Void) throws -> Void,
        checkpoint: (_ offset: Int) throws -> Void
    ) throws -> Int {
        guard let store else { throw DatabaseError.other(code: ErrorCode.storageError, message: "the server keeps no store", at: path) }
        try ServerCore.checkPath(path)
        endTick()
        let rows: Int
        do {
            rows = try store.replace(at: path, producing: produce, checkpoint: checkpoint, indexing: core.rules.namedIndexes)
        } catch let error as StoreError {
            throw error.databaseError
        }
        tree.forget(touching: path)
        core.indexes.drop(touching: path)
        step { core, actions in core.refreshListens(touching: path, into: &actions) }
        endTick()
        return rows
    }

    /// Whether ``exportStreaming(at:to:)`` may export `path` for `connection` (`nil`: the
    /// administrator): the server keeps a store, and no rule can keep the connection from
    /// reading (the open rules, or the administrator).
    public func exportsStreaming(at path: Path, by connection: ConnectionID?) -> Bool {
        store != nil && core.authorizer.grantsExport(as: core.auth(of: connection))
    }

    /// Writes the data at `path` in the export format to `sink` from the store's rows (the
    /// tick committed first), without building it in memory (``ServerStore/export(at:to:)``).
    /// - Returns: how many bytes were written.
    /// - Throws: `storage_error` when the store cannot be read; what `sink` throws.
    public func exportStreaming(at path: Path, to sink: (String) throws -> Void) throws -> Int {
        guard let store else { throw DatabaseError.other(code: ErrorCode.storageError, message: "the server keeps no store", at: path) }
        endTick()
        do {
            return try store.export(at: path, to: sink)
        } catch let error as StoreError {
            throw error.databaseError
        }
    }
}
