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
public final class Server {
    /// The data: whole in memory, or paged from the store.
    private let tree: ServerTree
    /// Milliseconds added to the clock: a skewed server clock, to show
    /// `.info/serverTimeOffset` at work.
    public var clockSkew: Int64 = 0
    /// The security rules in force: open (everyone may read and write) until rules are loaded.
    public private(set) var rules: Ruleset
    /// How often each rule was evaluated, and how, since the rules were put in force.
    public private(set) var coverage: RuleCoverage
    /// Whether an administrator's credential (`gauth`) is taken. By default only `owner` is,
    /// the token Firebase's Admin SDKs send to an emulator (firebase-admin-node
    /// `EmulatorAdminTokenProvider`). The emulator takes any string; Ember deliberately does
    /// not, so that a client cannot make itself an administrator with a made-up credential.
    public var acceptsAdminCredential: (String) -> Bool = { $0 == "owner" }
    /// The answer to a `gauth` whose credential is not taken (here, or by a network edge that
    /// takes another credential: `ember serve --admin-token`).
    public static let refusedAdminCredential = DatabaseError.other(
        code: ErrorCode.invalidToken, message: "the server does not take this administrator credential")
    /// Called with every rules check made for a connection while rules are loaded (not with the
    /// open rules): what `rules trace` prints. Each connection keeps its last check too
    /// (``lastRuleCheck(of:)``).
    public var onRuleCheck: ((RuleCheck) -> Void)?

    private let clock: any DatabaseClock
    private var connections: [ConnectionID: ServerConnection] = [:]
    private var nextConnection = 1
    /// When the earliest token a connection signed in with expires (server time), or `nil`
    /// when none will: when ``revokeExpiredTokens()`` is next due. It may be early (that
    /// connection signed out since); it is never late.
    public private(set) var nextTokenExpiry: Int64?
    /// Every listen, by its location.
    private var listens = ImmutableTree<ListenRefs>()
    /// The indexes the rules declare.
    private var indexes: ServerIndexes
    /// The answered keyed writes, so that a write sent again is not applied twice.
    private var ledger = WriteLedger()
    /// The answers to recent writes keyed as earlier versions of Ember did (still queued in
    /// clients' stores), so that they are not applied twice either.
    private var answeredWrites = AnsweredWrites(capacity: 65_536)
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
    /// The last commit that failed, if any: the writes of its tick were refused.
    public private(set) var lastStoreError: StoreError?
    /// Called with each failed commit (after its tick was undone).
    public var onStoreError: ((StoreError) -> Void)?

    /// A server on `clock` guarded by `rules` (which also declare its indexes), all in memory.
    public init(clock: any DatabaseClock = SystemClock(), rules: Ruleset = .open) {
        self.clock = clock
        self.rules = rules
        coverage = RuleCoverage(ruleCount: rules.entries.count)
        indexes = ServerIndexes(rules: rules)
        store = nil
        tree = ServerTree(store: nil, capacity: .max)
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
        self.clock = clock
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
        self.rules = inForce
        coverage = RuleCoverage(ruleCount: inForce.entries.count)
        indexes = ServerIndexes(rules: inForce)
        self.store = store
        store.startLoadingByLocation()
        tree = ServerTree(store: store, capacity: cacheSize)
        ledger.restore(try store.loadLedger())
        for (key, failure) in try store.loadAnswers() {
            answeredWrites.record(failure.map(AckStatus.failed) ?? .ok, for: key)
        }
    }

    /// How many indexes have been built (each the first time a query needs it).
    public var builtIndexCount: Int { indexes.count }

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
    public var serverTime: Int64 { clock.now() + clockSkew }

    /// The open connections.
    public var connectionIDs: [ConnectionID] { connections.keys.sorted() }

    /// The onDisconnect operations queued for a connection.
    public func onDisconnectOperations(of connection: ConnectionID) -> [OnDisconnectOperation] {
        connections[connection]?.onDisconnect ?? []
    }

    /// The last rules check made for a request of `connection` (`nil`: none since it opened,
    /// or the rules are open), for `explain`.
    public func lastRuleCheck(of connection: ConnectionID) -> RuleCheck? {
        connections[connection]?.lastRuleCheck
    }

    /// Who a connection acts as.
    public func auth(of connection: ConnectionID) -> ConnectionAuth {
        connections[connection]?.auth ?? .none
    }

    /// The queries a connection listens to, by location.
    public func listens(of connection: ConnectionID) -> [QuerySpec] {
        (connections[connection]?.listens.keys).map { $0.sorted { $0.path < $1.path } } ?? []
    }

    /// How many listens a connection holds (for the server's own tests).
    func listenCount(of connection: ConnectionID) -> Int {
        connections[connection]?.listens.count ?? 0
    }

    // MARK: Connections

    /// Serves a new connection: sends the handshake and handles what arrives.
    @discardableResult
    public func accept(_ transport: any Transport<ServerMessage, ClientMessage>) -> ConnectionID {
        let id = ConnectionID(nextConnection)
        nextConnection += 1
        let connection = ServerConnection(id: id, transport: transport)
        connections[id] = connection
        transport.onEvent = { [unowned self] event in
            switch event {
            case .received(let message): handle(message, from: id)
            case .closed: connectionEnded(id)
            }
        }
        send(.other(id, .handshake(serverTime: serverTime)))
        return id
    }

    /// Closes a connection from the server's side; its onDisconnect operations run.
    public func close(_ id: ConnectionID) {
        guard let connection = connections[id] else { return }
        connection.transport.close()
        connectionEnded(id)
    }

    private func connectionEnded(_ id: ConnectionID) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        for listen in connection.listens.values { end(listen) }
        let auth = currentAuth(of: connection, revoking: false)
        for operation in connection.onDisconnect {
            // Each runs as a write of its own, checked again now, rules included, as the
            // connection's user; a refused one is skipped.
            switch operation {
            case .put(let path, let node): try? put(node, at: path, hash: nil, as: auth, by: id)
            case .merge(let path, let changes): try? merge(changes, at: path, as: auth, by: id)
            }
        }
    }

    // MARK: Requests

    private func handle(_ message: ClientMessage, from id: ConnectionID) {
        guard let connection = connections[id] else { return }
        let auth = currentAuth(of: connection, revoking: true)
        switch message {
        case .listen(let requestID, let query, let tag, let hash):
            if let error = denial(.read(query.path, RuleQuery(query.params)), as: auth, by: id, at: serverTime) {
                send(.other(id, .ack(requestID: requestID, status: .failed(error))))
                return
            }
            if let error = load(query.path) {
                send(.other(id, .ack(requestID: requestID, status: .failed(error))))
                return
            }
            // A listen sent again replaces the first (its tag, what was sent) in place.
            let existing = connection.listens[query]
            // A value or child order is indexed while it is listened to (ServerIndexes): counted
            // before the data is read, so that the index answers it.
            if existing == nil { indexes.listenStarted(query.params, at: query.path) }
            let data = self.data(for: query)
            let listen = existing ?? ServerListen(query: query, tag: tag)
            listen.tag = tag
            listen.sent = query.params.loadsAllData ? .empty : data
            if existing == nil {
                connection.listens[query] = listen
                addListenRef(ListenRef(connection: id, listen: listen))
            }
            // A client with nothing cached sends an empty hash: skip hashing the location then
            // (only empty data hashes to "").
            if hash.isEmpty ? !data.isEmpty : !data.hasHash(hash) {
                send(.update(id, .dataUpdate(path: query.path, data: data, tag: tag)))
            }
            send(.other(id, .ack(requestID: requestID, status: .ok)))
        case .unlisten(let requestID, let query, _):
            if let listen = connection.listens.removeValue(forKey: query) { end(listen) }
            send(.other(id, .ack(requestID: requestID, status: .ok)))
        case .put(let requestID, let path, let data, let hash, let writeKey):
            answerWrite(requestID, connection, writeKey: writeKey) { () throws(DatabaseError) in
                try put(data, at: path, hash: hash, as: auth, by: id)
            }
        case .merge(let requestID, let path, let changes, let writeKey):
            answerWrite(requestID, connection, writeKey: writeKey) { () throws(DatabaseError) in
                try merge(changes, at: path, as: auth, by: id)
            }
        case .onDisconnectPut(let requestID, let path, let data):
            answer(requestID, connection) { () throws(DatabaseError) in
                // Checked as the write it would be now (Firebase checks again when it fires).
                _ = try prepare(data, at: path, hash: nil, as: auth, by: id)
                connection.onDisconnect.append(.put(path, data))
            }
        case .onDisconnectMerge(let requestID, let path, let changes):
            answer(requestID, connection) { () throws(DatabaseError) in
                _ = try prepare(changes, at: path, as: auth, by: id)
                connection.onDisconnect.append(.merge(path, changes))
            }
        case .onDisconnectCancel(let requestID, let path):
            // Forgetting below a queued object keeps the rest of it (OnDisconnect.ts cancel();
            // SparseSnapshotTree.forget).
            connection.onDisconnect = connection.onDisconnect.compactMap { $0.forgetting(path) }
            send(.other(id, .ack(requestID: requestID, status: .ok)))
        case .get(let requestID, let query):
            if let error = denial(.read(query.path, RuleQuery(query.params)), as: auth, by: id, at: serverTime) {
                send(.get(id, requestID: requestID, query, .failed(error)))
            } else {
                switch read(query) {
                case .success(let data): send(.get(id, requestID: requestID, query, .data(data)))
                case .failure(let error): send(.get(id, requestID: requestID, query, .failed(error)))
                }
            }
        case .resume(let requestID, let client, let writers):
            store?.recordLedger(ledger.resume(client: client, floors: writers))
            send(.other(id, .ack(requestID: requestID, status: .ok)))
        case .auth(let requestID, let text):
            do throws(DatabaseError) {
                let token = try AuthToken(parsing: text)
                if token.isExpired(at: serverTime) {
                    throw DatabaseError.other(code: ErrorCode.expiredToken, message: "the token of \(token.uid) has expired")
                }
                connection.auth = .user(token)
                if let expiry = token.expiry { nextTokenExpiry = min(nextTokenExpiry ?? expiry, expiry) }
                send(.other(id, .ack(requestID: requestID, status: .ok)))
                revokeListens(of: connection)
            } catch {
                send(.other(id, .ack(requestID: requestID, status: .failed(error))))
            }
        case .unauth(let requestID):
            connection.auth = .none
            send(.other(id, .ack(requestID: requestID, status: .ok)))
            revokeListens(of: connection)
        case .adminAuth(let requestID, let credential, let override):
            guard acceptsAdminCredential(credential) else {
                send(.other(id, .ack(requestID: requestID, status: .failed(Self.refusedAdminCredential))))
                return
            }
            switch override {
            case .none: connection.auth = .admin
            case .variable(let auth): connection.auth = .variable(auth)
            case .unauthenticated: connection.auth = .none
            }
            send(.other(id, .ack(requestID: requestID, status: .ok)))
            revokeListens(of: connection)
        }
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
        self.rules = rules
        coverage = RuleCoverage(ruleCount: rules.entries.count)
        indexes.reset(rules: rules)
        if let store, !store.isReadOnly {
            // The store keeps only what the rules declare (a failed drop keeps an index
            // exact, only kept for nothing).
            for index in store.storedIndexes where !rules.indexes(at: index.location).contains(index.order) {
                try? store.dropIndex(index)
            }
        }
        var revoked = 0
        for id in connectionIDs {
            if let connection = connections[id] { revoked += revokeListens(of: connection) }
        }
        return revoked
    }

    /// Revokes the sign-in of every connection whose token has expired, as its next request
    /// would: `expired_token` is sent (the realtime protocol's `ac`, an event stream's
    /// `auth_revoked`) and the listens its user may no longer read are revoked. A connection
    /// that sends nothing (a listener kept alive by keep-alives) is revoked at its token's
    /// expiry, not at its next request. Sets ``nextTokenExpiry`` anew.
    public func revokeExpiredTokens() {
        let now = serverTime
        var next: Int64?
        for id in connectionIDs {
            guard let connection = connections[id], case .user(let token) = connection.auth, let expiry = token.expiry else { continue }
            if token.isExpired(at: now) {
                _ = currentAuth(of: connection, revoking: true)
            } else {
                next = min(next ?? expiry, expiry)
            }
        }
        nextTokenExpiry = next
    }

    /// The connection's user now: a token that has expired is revoked first (`expired_token`
    /// is sent when `revoking`, and the listens no longer allowed are revoked).
    private func currentAuth(of connection: ServerConnection, revoking: Bool) -> ConnectionAuth {
        guard case .user(let token) = connection.auth, token.isExpired(at: serverTime) else { return connection.auth }
        connection.auth = .none
        if revoking {
            send(.other(connection.id, .authRevoked(error: .other(
                code: ErrorCode.expiredToken, message: "the token of \(token.uid) has expired"))))
            revokeListens(of: connection)
        }
        return .none
    }

    /// Revokes the connection's listens that the rules do not allow its user now.
    /// - Returns: how many.
    @discardableResult
    private func revokeListens(of connection: ServerConnection) -> Int {
        guard !rules.isOpen else { return 0 }
        var revoked = 0
        for (query, listen) in connection.listens.sorted(by: { $0.key.description < $1.key.description })
        where denial(.read(query.path, RuleQuery(query.params)), as: connection.auth, by: connection.id, at: serverTime) != nil {
            connection.listens.removeValue(forKey: query)
            end(listen)
            send(.other(connection.id, .listenRevoked(query: query, tag: listen.tag, error: .permissionDenied(at: query.path))))
            revoked += 1
        }
        return revoked
    }

    /// Whether the rules refuse `auth` every write at and below `path`, whatever is written
    /// (``Ruleset/refusesEveryWrite(atOrBelow:auth:now:data:)``): a request that can only be
    /// refused need not be read.
    public func refusesEveryWrite(atOrBelow path: Path, as auth: ConnectionAuth) -> Bool {
        guard rulesApply(to: auth) else { return false }
        let refused = rules.refusesEveryWrite(atOrBelow: path, auth: auth.variable, now: serverTime, data: .reading(tree))
        // A rule whose data could not be read decides nothing: the request is read and checked.
        return tree.takeFailure() == nil && refused
    }

    /// Whether the rules are checked for `auth`: not with the open rules, nor for an
    /// administrator.
    private func rulesApply(to auth: ConnectionAuth) -> Bool { !rules.isOpen && auth != .admin }

    /// Checks `operation` by the connection `id`, acting as `auth`, against the rules: `nil`
    /// when allowed (always, with the open rules or for an administrator), else
    /// `permission_denied` at the path refused. Every check made is counted and reported to
    /// ``onRuleCheck``.
    private func denial(
        _ operation: RuleRequest.Operation, as auth: ConnectionAuth, by id: ConnectionID, at now: Int64, writing writes: [RuleData.Write] = []
    )
        -> DatabaseError?
    {
        guard rulesApply(to: auth) else { return nil }
        // `newData` is the tree with the writes laid over it, not a copy of it; the check kept
        // for `explain` holds only the data the rules read, so the tree stays unshared and a
        // write changes it in place.
        let request = RuleRequest(
            operation, auth: auth.variable, now: now, data: .reading(tree),
            newData: writes.isEmpty ? nil : .overlay(reading: tree, writes))
        var reads = RuleReads()
        let refused = rules.check(request, reads: &reads, coverage: &coverage)
        // Data the rules read and the store could not give: refused, as the store's failure.
        if let failure = tree.takeFailure() { return failure.databaseError }
        let check = RuleCheck(connection: id, ruleset: rules, request: request.keeping(reads), refused: refused)
        connections[id]?.lastRuleCheck = check
        onRuleCheck?(check)
        return refused.map(DatabaseError.permissionDenied(at:))
    }

    /// Answers a request that writes nothing now (an onDisconnect registration).
    private func answer(_ requestID: Int, _ connection: ServerConnection, _ body: () throws(DatabaseError) -> Void) {
        send(.other(connection.id, .ack(requestID: requestID, status: Self.status(of: body))))
    }

    /// `ok` when `body` succeeds, else its error.
    private static func status(of body: () throws(DatabaseError) -> Void) -> AckStatus {
        do {
            try body()
            return .ok
        } catch {
            return .failed(error)
        }
    }

    /// Answers a write, once per write key: a write sent again (after a lost connection or a
    /// restart) gets its first answer instead of a second application.
    private func answerWrite(
        _ requestID: Int, _ connection: ServerConnection, writeKey: String?, _ body: () throws(DatabaseError) -> Void
    ) {
        let key = writeKey.flatMap(WriteKey.init(parsing:))
        if let key, let status = ledger.answer(for: key) {
            send(.other(connection.id, .ack(requestID: requestID, status: status)))
            return
        }
        if key == nil, let writeKey, let status = answeredWrites.status(for: writeKey) {
            send(.other(connection.id, .ack(requestID: requestID, status: status)))
            return
        }
        let status = Self.status(of: body)
        if let key {
            let changes = ledger.record(status, for: key)
            store?.recordLedger(changes)
        } else if let writeKey {
            answeredWrites.record(status, for: writeKey)
            if case .failed(let error) = status {
                store?.recordAnswer(writeKey, failure: error)
            } else {
                store?.recordAnswer(writeKey, failure: nil)
            }
        }
        send(.writeAck(connection.id, requestID: requestID, status, key: writeKey))
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
    public func endTick() {
        guard let store else { return }
        guard !tick.isEmpty else {
            evictIfNeeded()
            return
        }
        let ended = tick
        tick = ServerTick()
        let committed = tree.endChanges()
        do {
            try store.commit(tree.root, committed: committed, isLoaded: tree.isLoaded)
        } catch {
            store.discardChanges()
            undo(ended, committed: committed, because: error)
            // The refusals are kept with the next commit; try to make them durable now.
            try? store.commitLedger()
            lastStoreError = error
            onStoreError?(error)
            return
        }
        for held in ended.held { deliver(held) }
        evictIfNeeded()
    }

    /// Evicts the least recently used locations no listen holds, when the tree is over its
    /// budget; the indexes built on them go with them.
    private func evictIfNeeded() {
        guard tree.loadedBytes > tree.capacity else { return }
        tree.evict(keeping: retention(of:)) { path in indexes.drop(touching: path) }
    }

    /// What the listens hold of the data at `path`: all of it when one listens at or above it,
    /// the locations below it when one listens only there.
    private func retention(of path: Path) -> ServerTree.Retention {
        var above = false
        let below = listens.forEach(on: path) { _, refs in
            if !refs.isEmpty { above = true }
        }
        if above || below.value?.isEmpty == false { return .whole }
        return below.children.isEmpty ? .none : .below
    }

    /// Ends the tick and closes the store.
    public func close() throws(StoreError) {
        endTick()
        try store?.close()
    }

    /// Sends `held` now, or holds it for the end of the tick when a store is attached.
    private func send(_ held: ServerTick.Held) {
        if store == nil {
            deliver(held)
        } else {
            tick.held.append(held)
        }
    }

    private func deliver(_ held: ServerTick.Held) {
        switch held {
        case .update(let id, let message), .other(let id, let message):
            connections[id]?.send(message)
        case .writeAck(let id, let requestID, let status, _):
            connections[id]?.send(.ack(requestID: requestID, status: status))
        case .get(let id, let requestID, _, let result):
            connections[id]?.send(.getResult(requestID: requestID, result: result))
        }
    }

    /// Keeps the tree as it was before the tick's first write, to undo the tick if its commit
    /// fails.
    private func willWrite() {
        guard store != nil else { return }
        tick.wrote = true
        tree.beginChanges()
    }

    private func undo(_ ended: ServerTick, committed: Node?, because error: StoreError) {
        if let committed {
            tree.restore(committed)
            indexes.reset(rules: indexes.rules)
        }
        // Connections that were to hear of the refused writes get their listens' data again,
        // before the answers (a listen answered in the tick needs its data first).
        var stale = Set<ConnectionID>()
        for case .update(let id, _) in ended.held { stale.insert(id) }
        for id in stale.sorted() {
            guard let connection = connections[id] else { continue }
            for (query, listen) in connection.listens {
                let data = data(for: query)
                if !query.params.loadsAllData { listen.sent = data }
                connection.send(.dataUpdate(path: query.path, data: data, tag: listen.tag))
            }
        }
        let refusal = DatabaseError.other(
            code: ErrorCode.storageError, message: "the server could not save the write, so it refused it: \(error)")
        for held in ended.held {
            switch held {
            case .update:
                continue
            case .writeAck(let id, let requestID, .ok, let key):
                // Refused for good: the store records it with its next commit, and a client
                // that sends the write again (after a restart) gets this answer, not an apply.
                if let key, let parsed = WriteKey(parsing: key) {
                    store?.recordLedger(ledger.refuse(parsed, because: refusal))
                } else if let key {
                    answeredWrites.record(.failed(refusal), for: key)
                    store?.recordAnswer(key, failure: refusal)
                }
                connections[id]?.send(.ack(requestID: requestID, status: .failed(refusal)))
            case .get(let id, let requestID, let query, .data):
                switch read(query) {
                case .success(let data): connections[id]?.send(.getResult(requestID: requestID, result: .data(data)))
                case .failure(let error): connections[id]?.send(.getResult(requestID: requestID, result: .failed(error)))
                }
            case .get(let id, let requestID, _, let refused):
                connections[id]?.send(.getResult(requestID: requestID, result: refused))
            case .writeAck, .other:
                deliver(held)
            }
        }
    }

    // MARK: Reading

    /// The data at `path`.
    /// - Complexity: O(d log n).
    /// Reads the location from the store first when it is not in memory; a read that fails
    /// gives what memory holds (see ``load(_:)`` for the failure).
    public func value(at path: Path) -> Node { tree.node(at: path) }

    /// Makes the data at `path` whole in memory, reading it from the store if it is not.
    /// - Returns: `storage_error` when the store cannot be read.
    public func load(_ path: Path) -> DatabaseError? {
        do {
            try tree.ensureLoaded(path)
            return nil
        } catch {
            return error.databaseError
        }
    }

    /// What a one-off read of `query` returns: from the index the store keeps when the rules
    /// declare the query's value or child order and its location is not in memory (the
    /// location is not loaded: only the children returned are), else from the location loaded.
    /// - Returns: `storage_error` when the store cannot be read.
    public func read(_ query: QuerySpec) -> Result<Node, DatabaseError> {
        if let answer = readThroughStoredIndex(query) { return answer }
        if let error = load(query.path) { return .failure(error) }
        return .success(data(for: query))
    }

    /// The answer to `query` from the store's index of its location and order (built first
    /// when the store keeps none yet), or `nil` when that cannot answer it: the order is not
    /// declared, the location is in memory (its index there is current), a change to it
    /// waits for the tick's commit, or the index holds no child in the window (the location
    /// may be a leaf, which the ordinary read answers).
    private func readThroughStoredIndex(_ query: QuerySpec) -> Result<Node, DatabaseError>? {
        guard let store, !query.params.loadsAllData, let order = query.params.orderBy else { return nil }
        switch order {
        case .value, .child: break
        case .key, .priority: return nil
        }
        guard rules.indexes(at: query.path).contains(order), !tree.isLoaded(query.path),
            !store.hasChanges(touching: query.path)
        else { return nil }
        do {
            let index: StoredIndex
            if let kept = store.storedIndex(at: query.path, order) {
                index = kept
            } else if !store.isReadOnly {
                index = try store.buildIndex(at: query.path, order)
            } else {
                return nil
            }
            let keys = try store.queryIndex(index, query.params)
            if keys.isEmpty { return nil }
            var children: [(ChildKey, Node)] = []
            children.reserveCapacity(keys.count)
            for key in keys {
                let child = query.path.child(key)
                try tree.ensureLoaded(child)
                let node = tree.root.child(at: child)
                if !node.isEmpty { children.append((key, node)) }
            }
            return .success(Node(children: children))
        } catch {
            return .failure(error.databaseError)
        }
    }

    /// The data a query returns: the whole location, or the children in its window.
    /// - Complexity: O(log n + k) for k children by key or priority, or by a value or child
    ///   order the rules index; O(n log k) for an unindexed value or child order (a scan).
    public func data(for query: QuerySpec) -> Node {
        let location = tree.node(at: query.path)
        if query.params.loadsAllData { return location }
        if let index = indexes.index(for: query.params, at: query.path, root: tree.root) {
            return Node(children: index.query(query.params, in: location).map { ($0.key, $0.node) })
        }
        return query.params.filteredNode(location)
    }

    // MARK: Writing

    /// Replaces the value at `path`, as an administrator (the rules do not apply).
    /// - Parameter hash: when given, the write happens only if the current value has this hash.
    /// - Throws: `invalid_*` errors for bad data, `datastale` when the hash no longer matches.
    public func put(_ node: Node, at path: Path, hash: String?) throws(DatabaseError) {
        try put(node, at: path, hash: hash, as: .admin, by: nil)
    }

    /// Sets several paths below `path` at once, as an administrator: all land or none.
    /// - Throws: as ``put(_:at:hash:)``, and `invalid_value` when one changed path is an
    ///   ancestor of another.
    public func merge(_ changes: [WireChange], at path: Path) throws(DatabaseError) {
        try merge(changes, at: path, as: .admin, by: nil)
    }

    // MARK: Importing

    /// Whether ``importStreaming(at:as:_:)`` may import at `path` for `connection` (`nil`: the
    /// administrator): the server keeps a store, and the rules grant the write whatever is
    /// written (a `.write` on the way down holds without reading `newData`, and no `.validate`
    /// checks the location). Otherwise an import is a write like any other.
    public func importsStreaming(at path: Path, by connection: ConnectionID?) -> Bool {
        guard let store, !store.isReadOnly, writesRefused == nil else { return false }
        guard let connection else { return true }
        let auth = connections[connection]?.auth ?? .none
        guard rulesApply(to: auth) else { return true }
        let granted = rules.grantsWrite(at: path, auth: auth.variable, now: serverTime, data: .reading(tree))
        return tree.takeFailure() == nil && granted == true && !rules.validates(writesAt: path)
    }

    /// Replaces the data at `path` with the pieces `produce` delivers (an ``ExportReader``'s, on a
    /// thread of its own), written into the store as they come, in one transaction: all of it,
    /// or nothing when `produce` or `checkpoint` throws (bad data, Ctrl-C) or the process dies. The tick is committed first;
    /// the data in memory at, above and below `path` is dropped (it is read again when used),
    /// and every listen there gets its data again, as after any write.
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
        try Self.checkPath(path)
        endTick()
        let rows: Int
        do {
            rows = try store.replace(at: path, producing: produce, checkpoint: checkpoint, indexing: rules.namedIndexes)
        } catch let error as StoreError {
            throw error.databaseError
        }
        tree.forget(touching: path)
        indexes.drop(touching: path)
        // Every listen at, above or below the location hears its data as it now is.
        forEachListen(touching: path) { ref, _ in
            let listen = ref.listen
            guard listen.isListening, let connection = connections[ref.connection] else { return }
            if listen.query.params.loadsAllData {
                send(.update(ref.connection, .dataUpdate(path: listen.query.path, data: tree.node(at: listen.query.path), tag: listen.tag)))
            } else {
                sendWindowChanges(to: connection, for: listen)
            }
        }
        endTick()
        return rows
    }

    /// Whether ``exportStreaming(at:to:)`` may export `path` for `connection` (`nil`: the
    /// administrator): the server keeps a store, and no rule can keep the connection from
    /// reading (the open rules, or the administrator).
    public func exportsStreaming(at path: Path, by connection: ConnectionID?) -> Bool {
        guard store != nil else { return false }
        guard let connection else { return true }
        return !rulesApply(to: connections[connection]?.auth ?? .none)
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

    /// A put checked and resolved, not applied yet.
    private struct PreparedPut {
        let resolved: Node
    }

    /// When set, every write is refused with `permission_denied` and this reason once the
    /// rules allowed it, the administrator's too: `ember serve` answers a namespace that does
    /// not exist with such a server, empty, so that a request that may not create one reads
    /// it as an empty database and writes nothing to it.
    public var writesRefused: String?

    /// Refuses a write (checked and allowed by the rules) when ``writesRefused`` is set.
    private func checkWritesAllowed(at path: Path) throws(DatabaseError) {
        if let writesRefused { throw .other(code: ErrorCode.permissionDenied, message: writesRefused, at: path) }
    }

    /// Checks a put by the connection `id` (validity, then the rules with its server values
    /// resolved, then the hash) and resolves it.
    ///
    /// The rules come before the hash: a put they refuse is refused whatever its hash, or
    /// `datastale` for a wrong guess and `permission_denied` for the right one would tell a
    /// client the rules keep out what is there (and `""` whether anything is).
    private func prepare(_ node: Node, at path: Path, hash: String?, as auth: ConnectionAuth, by id: ConnectionID?)
        throws(DatabaseError) -> PreparedPut
    {
        try checkWrite(node, at: path)
        if let error = load(path) { throw error }
        let current = tree.root.child(at: path)
        // One instant for the server values and the rules' `now` (Firebase resolves them
        // together): the clock is read once.
        let now = serverTime
        let resolved = node.resolvingServerValues(existing: current, serverTime: now)
        // A server value must resolve to something storable (an increment can overflow).
        if node.containsServerValues { try resolved.validate(at: path) }
        if let id, rulesApply(to: auth), let error = denial(.write([path]), as: auth, by: id, at: now, writing: [RuleData.Write(path, resolved)]) {
            throw error
        }
        try checkWritesAllowed(at: path)
        if let hash, !current.hasHash(hash) { throw .dataStale(at: path) }
        return PreparedPut(resolved: resolved)
    }

    private func put(_ node: Node, at path: Path, hash: String?, as auth: ConnectionAuth, by id: ConnectionID?) throws(DatabaseError) {
        let prepared = try prepare(node, at: path, hash: hash, as: auth, by: id)
        willWrite()
        store?.markChanged(path)
        indexes.willWrite(at: [path], root: tree.root)
        tree.set(prepared.resolved, at: path)
        indexes.didWrite(root: tree.root)
        broadcastPut(prepared.resolved, at: path)
    }

    /// Above this many changes, a merge reads its location whole before it is applied, rather
    /// than each changed location.
    static let mergeLoadsWhole = 256

    /// A merge checked and resolved, not applied yet.
    private struct PreparedMerge {
        let resolved: [WireChange]
    }

    /// Checks a merge by the connection `id` (validity, then the rules for every changed path
    /// against the same new data: allowed only as a whole) and resolves it.
    private func prepare(_ changes: [WireChange], at path: Path, as auth: ConnectionAuth, by id: ConnectionID?)
        throws(DatabaseError) -> PreparedMerge
    {
        if let id, rulesApply(to: auth), let first = changes.first {
            // Refused before it is validated, resolved and laid over the tree when the rules
            // refuse its first path whatever is written (`.write` rules that do not read
            // `newData`): the whole check would refuse that path first, too.
            let firstPath = path.appending(first.path)
            let granted = rules.grantsWrite(at: firstPath, auth: auth.variable, now: serverTime, data: .reading(tree))
            if let failure = tree.takeFailure() { throw failure.databaseError }
            if granted == false,
                let error = denial(.write([firstPath]), as: auth, by: id, at: serverTime, writing: [RuleData.Write(firstPath, first.node)])
            {
                throw error
            }
        }
        try checkMerge(changes, at: path)
        // The locations written, read first: each one, or the merge's location whole when
        // there are many (one range of rows instead of thousands of reads).
        if changes.count > Self.mergeLoadsWhole {
            if let error = load(path) { throw error }
        } else {
            for change in changes {
                if let error = load(path.appending(change.path)) { throw error }
            }
        }
        let now = serverTime
        var resolved: [WireChange] = []
        for change in changes {
            let full = path.appending(change.path)
            let node = change.node.resolvingServerValues(existing: tree.root.child(at: full), serverTime: now)
            // A server value must resolve to something storable (an increment can overflow).
            if change.node.containsServerValues { try node.validate(at: full) }
            resolved.append(WireChange(change.path, node))
        }
        if let id, rulesApply(to: auth) {
            let writes = resolved.map { RuleData.Write(path.appending($0.path), $0.node) }
            if let error = denial(.write(writes.map(\.path)), as: auth, by: id, at: now, writing: writes) { throw error }
        }
        try checkWritesAllowed(at: path)
        return PreparedMerge(resolved: resolved)
    }

    private func merge(_ changes: [WireChange], at path: Path, as auth: ConnectionAuth, by id: ConnectionID?) throws(DatabaseError) {
        let prepared = try prepare(changes, at: path, as: auth, by: id)
        willWrite()
        indexes.willWrite(at: changes.map { path.appending($0.path) }, root: tree.root)
        // Every change is checked: they all land. In place, so that only the nodes on each
        // changed path are copied, and only when the tick's snapshot still shares them.
        for change in prepared.resolved { tree.set(change.node, at: path.appending(change.path)) }
        for change in prepared.resolved { store?.markChanged(path.appending(change.path)) }
        indexes.didWrite(root: tree.root)
        broadcastMerge(prepared.resolved, at: path)
    }

    private func checkWrite(_ node: Node, at path: Path) throws(DatabaseError) {
        if let store, store.isReadOnly {
            throw .other(
                code: ErrorCode.readOnly, message: "the database at \(store.location) is read-only (its directory cannot be written)",
                at: path)
        }
        try Self.checkPath(path)
        try node.validate(at: path)
    }

    private func checkMerge(_ changes: [WireChange], at path: Path) throws(DatabaseError) {
        try Node.validateUpdatePaths(changes.map(\.path), at: path)
        for change in changes { try checkWrite(change.node, at: path.appending(change.path)) }
    }

    private static func checkPath(_ path: Path) throws(DatabaseError) {
        // The last key may be `.priority`: the write sets that node's priority.
        for key in path.isPriority ? path.keys.dropLast() : path.keys[...] {
            if let problem = ChildKey.problem(with: key.name) {
                throw .invalidValue("the path has an invalid key \"\(key.name)\": \(problem)", at: path)
            }
        }
        try path.checkDepth()
    }

    // MARK: Fan-out

    /// Adds a listen at its location, changing the tree in place (`ImmutableTree.modify`:
    /// nothing else shares it), so that n listens on one location cost O(n) in all, not a copy
    /// of the location's list per listen.
    /// - Complexity: O(depth) amortized.
    private func addListenRef(_ ref: ListenRef) {
        listens.modify(at: ref.query.path) { tree in
            if tree.value == nil { tree.value = ListenRefs(ref) } else { tree.value!.append(ref) }
        }
    }

    /// Ends a listen: marked, then dropped from its location's list when the list is compacted
    /// (``ListenRefs``), the location pruned once none stands.
    /// - Complexity: O(depth) amortized.
    private func end(_ listen: ServerListen) {
        guard listen.isListening else { return }
        listen.isListening = false
        indexes.listenEnded(listen.query.params, at: listen.query.path)
        listens.modify(at: listen.query.path) { tree in
            tree.value?.noteEnded()
            if tree.value?.isEmpty == true { tree.value = nil }
        }
    }

    /// The listens at, above and below `path`, each with whether it sits above (or at) `path`.
    /// Calls `body` with every listen at, above (`above: true`) or below `path`.
    /// - Complexity: O(d log n) to reach `path`, plus the listens below it.
    private func forEachListen(touching path: Path, _ body: (ListenRef, _ above: Bool) -> Void) {
        let below = listens.forEach(on: path) { _, refs in
            refs.forEach { body($0, true) }
        }
        below.value?.forEach { body($0, true) }
        for (_, child) in below.children {
            child.forEach { _, refs in
                refs.forEach { body($0, false) }
            }
        }
    }

    private func broadcastPut(_ node: Node, at path: Path) {
        broadcast(at: path, written: [path]) { tag in .dataUpdate(path: path, data: node, tag: tag) }
    }

    private func broadcastMerge(_ changes: [WireChange], at path: Path) {
        broadcast(at: path, written: changes.map { path.appending($0.path) }) { tag in
            .mergeUpdate(path: path, changes: changes, tag: tag)
        }
    }

    /// Tells every listen that the data at `written` (below `path`) changed: a default listen
    /// above `path` gets `message`, one below it its own location's new data, a filtered query
    /// its window's changes.
    private func broadcast(at path: Path, written: [Path], message: (Int?) -> ServerMessage) {
        // The listen and its connection's id come with the reference: no lookup per listener
        // (a write to a location 1,000 connections listen to reaches each of them).
        forEachListen(touching: path) { ref, above in
            let listen = ref.listen
            let location = listen.query.path
            if !above && !written.contains(where: { $0.contains(location) || location.contains($0) }) {
                // Below the update's location, but none of its paths touches this listen.
                return
            }
            if !listen.query.params.loadsAllData {
                guard let connection = connections[ref.connection] else { return }
                sendWindowChanges(to: connection, for: listen)
            } else if above {
                send(.update(ref.connection, message(listen.tag)))
            } else {
                send(.update(ref.connection, .dataUpdate(path: location, data: tree.node(at: location), tag: listen.tag)))
            }
        }
    }

    /// Sends a filtered query the children that entered, changed in or left its window.
    private func sendWindowChanges(to connection: ServerConnection, for listen: ServerListen) {
        let query = listen.query
        let now = data(for: query)
        if now == listen.sent { return }
        var changes: [WireChange] = []
        for child in listen.sent.children where !now.hasChild(child.key) {
            changes.append(WireChange(Path(keys: [child.key]), .empty))
        }
        for child in now.children where listen.sent.child(child.key) != child.node {
            changes.append(WireChange(Path(keys: [child.key]), child.node))
        }
        listen.sent = now
        send(.update(connection.id, .mergeUpdate(path: query.path, changes: changes, tag: listen.tag)))
    }
}
