import EmberCore
import EmberRules
import EmberStorage
import EmberWire

/// The server's core: the state of the database and its connections, and what each request
/// does to it. It takes a request (with the data it needs, paged in by its tree) and returns
/// actions (``ServerAction``): the answers and updates it owes, the locations and ledger
/// entries the store must keep, the rules checks it made. It sends nothing, commits nothing and
/// holds nothing for a commit: its host (``Server``) does, as swift-nio's state machines leave
/// their I/O to the channel handler that owns them.
///
/// Every rules decision goes through one ``ServerAuthorizer``.
///
/// A value owned by one ``Server``; its state is values (the connections' table, the tree of
/// listens, the ledger, the indexes) except two references it does not share: the tree it
/// reads the data through (``ServerTree``, the pager over the store) and each listen
/// (``ServerListen``), which the connection's table and the tree of listens both point to.
/// Copying a core would share those two: nothing does.
struct ServerCore {
    /// The data: whole in memory, or paged from the store.
    let tree: ServerTree
    /// The rules and their coverage: every check is made here.
    private(set) var authorizer: ServerAuthorizer
    let clock: any DatabaseClock
    /// Milliseconds added to the clock: a skewed server clock.
    var clockSkew: Int64 = 0
    /// Whether an administrator's credential (`gauth`) is taken (see ``Server``).
    var acceptsAdminCredential: (String) -> Bool = { $0 == "owner" }
    /// When set, every write is refused with `permission_denied` and this reason once the
    /// rules allowed it (see ``Server/writesRefused``).
    var writesRefused: String?
    /// The open connections.
    var connections: [ConnectionID: ServerConnection] = [:]
    /// Whether each rules check is reported as an action (someone observes them, see
    /// ``Server/onRuleCheck``); the last one of each connection is kept either way (an action
    /// for every guarded write that no one reads cost its append and its destruction).
    var reportsRuleChecks = false
    /// The last rules check of each open connection (what `explain` explains).
    private var lastRuleChecks = LastRuleChecks()
    private var nextConnection = 1
    /// When the earliest token a connection signed in with expires (server time), or `nil`
    /// when none will.
    private(set) var nextTokenExpiry: Int64?
    /// Every listen, by its location.
    var listens = ImmutableTree<ListenRefs>()
    /// The indexes the rules declare, and those listened orders build.
    var indexes: ServerIndexes
    /// The answered keyed writes, so that a write sent again is not applied twice.
    var ledger = WriteLedger()
    /// The answers to recent writes keyed as earlier versions of Ember did.
    var answeredWrites = AnsweredWrites(capacity: 65_536)

    init(tree: ServerTree, clock: any DatabaseClock, rules: Ruleset) {
        self.tree = tree
        self.clock = clock
        authorizer = ServerAuthorizer(rules: rules)
        indexes = ServerIndexes(rules: rules)
    }

    /// Where the data is kept, if anywhere.
    var store: ServerStore? { tree.store }
    /// The rules in force.
    var rules: Ruleset { authorizer.rules }
    /// The server's time in milliseconds: its clock plus the skew.
    var serverTime: Int64 { clock.now() + clockSkew }

    // MARK: Connections

    /// The id the next connection opened gets.
    var nextConnectionID: ConnectionID { ConnectionID(nextConnection) }

    /// Opens a connection: its handshake is owed.
    /// - Complexity: O(1).
    mutating func openConnection(into actions: inout [ServerAction]) -> ConnectionID {
        let id = ConnectionID(nextConnection)
        nextConnection += 1
        connections[id] = ServerConnection(id: id)
        actions.append(.send(id, .handshake(serverTime: serverTime)))
        return id
    }

    /// A connection ended: its listens end and its onDisconnect operations run, each as a write
    /// of its own, checked again now, rules included, as the connection's user; a refused one
    /// is skipped.
    mutating func connectionEnded(_ id: ConnectionID, into actions: inout [ServerAction]) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        for listen in connection.listens.values { end(listen) }
        var auth = connection.auth
        if case .user(let token) = auth, token.isExpired(at: serverTime) { auth = .none }
        for operation in connection.onDisconnect {
            switch operation {
            case .put(let path, let node): try? put(node, at: path, hash: nil, as: auth, by: id, into: &actions)
            case .merge(let path, let changes): try? merge(changes, at: path, as: auth, by: id, into: &actions)
            }
        }
        // After its onDisconnect operations, whose checks are made for it too.
        lastRuleChecks.forget(id)
    }

    // MARK: Requests

    /// Handles one request of the connection `id`.
    mutating func handle(_ message: ClientMessage, from id: ConnectionID, into actions: inout [ServerAction]) {
        guard let auth = currentAuth(of: id, revoking: true, into: &actions) else { return }
        switch message {
        case .listen(let requestID, let query, let tag, let hash):
            if let error = denial(.read(query.path, RuleQuery(query.params)), as: auth, by: id, at: serverTime, into: &actions) {
                actions.append(.send(id, .ack(requestID: requestID, status: .failed(error))))
                return
            }
            if let error = load(query.path) {
                actions.append(.send(id, .ack(requestID: requestID, status: .failed(error))))
                return
            }
            listen(query, tag: tag, hash: hash, by: id, into: &actions)
            actions.append(.send(id, .ack(requestID: requestID, status: .ok(.listening))))
        case .unlisten(let requestID, let query, _):
            if let listen = connections[id]?.listens.removeValue(forKey: query) { end(listen) }
            actions.append(.send(id, .ack(requestID: requestID, status: .ok())))
        case .put(let requestID, let path, let data, let hash, let writeKey):
            answerWrite(requestID, by: id, writeKey: writeKey, into: &actions) { core, actions throws(DatabaseError) in
                try core.put(data, at: path, hash: hash, as: auth, by: id, into: &actions)
            }
        case .merge(let requestID, let path, let changes, let writeKey):
            answerWrite(requestID, by: id, writeKey: writeKey, into: &actions) { core, actions throws(DatabaseError) in
                try core.merge(changes, at: path, as: auth, by: id, into: &actions)
            }
        case .onDisconnectPut(let requestID, let path, let data):
            let status: AckStatus
            do throws(DatabaseError) {
                // Checked as the write it would be now (Firebase checks again when it fires).
                _ = try prepare(data, at: path, hash: nil, as: auth, by: id, into: &actions)
                connections[id]?.onDisconnect.append(.put(path, data))
                status = .ok()
            } catch {
                status = .failed(error)
            }
            actions.append(.send(id, .ack(requestID: requestID, status: status)))
        case .onDisconnectMerge(let requestID, let path, let changes):
            let status: AckStatus
            do throws(DatabaseError) {
                _ = try prepare(changes, at: path, as: auth, by: id, into: &actions)
                connections[id]?.onDisconnect.append(.merge(path, changes))
                status = .ok()
            } catch {
                status = .failed(error)
            }
            actions.append(.send(id, .ack(requestID: requestID, status: status)))
        case .onDisconnectCancel(let requestID, let path):
            // Forgetting below a queued object keeps the rest of it (OnDisconnect.ts cancel();
            // SparseSnapshotTree.forget).
            if let queued = connections[id]?.onDisconnect {
                connections[id]?.onDisconnect = queued.compactMap { $0.forgetting(path) }
            }
            actions.append(.send(id, .ack(requestID: requestID, status: .ok())))
        case .get(let requestID, let query):
            let result: GetResult
            if let error = denial(.read(query.path, RuleQuery(query.params)), as: auth, by: id, at: serverTime, into: &actions) {
                result = .failed(error)
            } else {
                switch read(query) {
                case .success(let data): result = .data(data)
                case .failure(let error): result = .failed(error)
                }
            }
            actions.append(.getAnswer(id, requestID: requestID, query, result))
        case .resume(let requestID, let client, let writers):
            actions.append(.recordLedger(ledger.resume(client: client, floors: writers)))
            actions.append(.send(id, .ack(requestID: requestID, status: .ok())))
        case .auth(let requestID, let text):
            do throws(DatabaseError) {
                let token = try AuthToken(parsing: text)
                if token.isExpired(at: serverTime) {
                    throw DatabaseError.other(code: ErrorCode.expiredToken, message: "the token of \(token.uid) has expired")
                }
                connections[id]?.auth = .user(token)
                if let expiry = token.expiry { nextTokenExpiry = min(nextTokenExpiry ?? expiry, expiry) }
                // The protocol's answer names the user and when the token expires (seconds).
                let payload = AckPayload.signedIn(auth: token.auth, expires: token.expiresAt / 1000)
                actions.append(.send(id, .ack(requestID: requestID, status: .ok(payload))))
                revokeListens(of: id, into: &actions)
            } catch {
                actions.append(.send(id, .ack(requestID: requestID, status: .failed(error))))
            }
        case .unauth(let requestID):
            connections[id]?.auth = .none
            actions.append(.send(id, .ack(requestID: requestID, status: .ok())))
            revokeListens(of: id, into: &actions)
        case .adminAuth(let requestID, let credential, let override):
            guard acceptsAdminCredential(credential) else {
                actions.append(.send(id, .ack(requestID: requestID, status: .failed(Server.refusedAdminCredential))))
                return
            }
            let payload: AckPayload
            switch override {
            case .none:
                connections[id]?.auth = .admin
                payload = .signedIn(auth: nil, expires: nil)
            case .variable(let variable):
                connections[id]?.auth = .variable(variable)
                payload = .signedIn(auth: variable, expires: nil)
            case .unauthenticated:
                connections[id]?.auth = .none
                payload = .signedIn(auth: nil, expires: nil)
            }
            actions.append(.send(id, .ack(requestID: requestID, status: .ok(payload))))
            revokeListens(of: id, into: &actions)
        }
    }

    /// Answers a write, once per write key: a write sent again (after a lost connection or a
    /// restart) gets its first answer instead of a second application.
    private mutating func answerWrite(
        _ requestID: Int, by id: ConnectionID, writeKey: SentWriteKey?, into actions: inout [ServerAction],
        _ apply: (inout ServerCore, inout [ServerAction]) throws(DatabaseError) -> Void
    ) {
        let answered: AckStatus?
        switch writeKey {
        case .keyed(let key): answered = ledger.answer(for: key)
        case .opaque(let text): answered = answeredWrites.status(for: text)
        case nil: answered = nil
        }
        if let answered {
            actions.append(.send(id, .ack(requestID: requestID, status: answered)))
            return
        }
        let status: AckStatus
        do throws(DatabaseError) {
            try apply(&self, &actions)
            status = .ok()
        } catch {
            status = .failed(error)
        }
        recordAnswer(status, for: writeKey, into: &actions)
        actions.append(.writeAnswer(id, requestID: requestID, status, key: writeKey))
    }

    /// Records `status` as the answer to the write of `key` (nothing for a write sent without
    /// one): in the ledger for Ember's keys, among the answered writes for an old-style key,
    /// with the change for the store in `actions`.
    mutating func recordAnswer(_ status: AckStatus, for key: SentWriteKey?, into actions: inout [ServerAction]) {
        switch key {
        case .keyed(let key):
            // Without a store, nothing is kept: the answer is recorded and no change made.
            if store == nil {
                ledger.recordInMemory(status, for: key)
            } else {
                actions.append(.recordLedger(ledger.record(status, for: key)))
            }
        case .opaque(let text):
            answeredWrites.record(status, for: text)
            let failure: DatabaseError? = if case .failed(let error) = status { error } else { nil }
            actions.append(.recordAnswer(key: text, failure: failure))
        case nil:
            break
        }
    }

    // MARK: Users and rules

    /// Puts `rules` in force (already saved by the host): the coverage counts start again, the
    /// indexes follow the new `.indexOn`, and the listens no longer allowed are revoked.
    /// - Returns: how many listens were revoked.
    mutating func setRules(_ rules: Ruleset, into actions: inout [ServerAction]) -> Int {
        authorizer.replace(with: rules)
        indexes.reset(rules: rules)
        var revoked = 0
        for id in connections.keys.sorted() { revoked += revokeListens(of: id, into: &actions) }
        return revoked
    }

    /// Revokes the sign-in of every connection whose token has expired (see
    /// ``Server/revokeExpiredTokens()``), and sets ``nextTokenExpiry`` anew.
    mutating func revokeExpiredTokens(into actions: inout [ServerAction]) {
        let now = serverTime
        var next: Int64?
        for id in connections.keys.sorted() {
            guard case .user(let token)? = connections[id]?.auth, let expiry = token.expiry else { continue }
            if token.isExpired(at: now) {
                _ = currentAuth(of: id, revoking: true, into: &actions)
            } else {
                next = min(next ?? expiry, expiry)
            }
        }
        nextTokenExpiry = next
    }

    /// The connection's user now (`nil`: the connection is not open): a token that has expired
    /// is revoked first (`expired_token` is sent when `revoking`, and the listens no longer
    /// allowed are revoked).
    private mutating func currentAuth(of id: ConnectionID, revoking: Bool, into actions: inout [ServerAction]) -> ConnectionAuth? {
        guard let auth = connections[id]?.auth else { return nil }
        guard case .user(let token) = auth, token.isExpired(at: serverTime) else { return auth }
        connections[id]?.auth = .none
        if revoking {
            actions.append(.send(id, .authRevoked(error: .other(
                code: ErrorCode.expiredToken, message: "the token of \(token.uid) has expired"))))
            revokeListens(of: id, into: &actions)
        }
        return ConnectionAuth.none
    }

    /// Revokes the connection's listens that the rules do not allow its user now.
    /// - Returns: how many.
    @discardableResult
    private mutating func revokeListens(of id: ConnectionID, into actions: inout [ServerAction]) -> Int {
        guard !rules.isOpen, let connection = connections[id] else { return 0 }
        var revoked = 0
        for (query, listen) in connection.listens.sorted(by: { $0.key.description < $1.key.description })
        where denial(.read(query.path, RuleQuery(query.params)), as: connection.auth, by: id, at: serverTime, into: &actions) != nil {
            connections[id]?.listens.removeValue(forKey: query)
            end(listen)
            actions.append(.send(id, .listenRevoked(query: query, tag: listen.tag, error: .permissionDenied(at: query.path))))
            revoked += 1
        }
        return revoked
    }

    /// Checks `operation` by the connection `id`, acting as `auth`, through the authorizer:
    /// `nil` when allowed, else why not. The check made is kept as the connection's last, and
    /// reported (``ServerAction/ruleChecked(_:)``) when ``reportsRuleChecks``.
    mutating func denial(
        _ operation: RuleRequest.Operation, as auth: ConnectionAuth, by id: ConnectionID, at now: Int64,
        writing writes: [RuleData.Write] = [], into actions: inout [ServerAction]
    ) -> DatabaseError? {
        let decision = authorizer.authorize(operation, as: auth, by: id, at: now, writing: writes, over: tree)
        if let check = decision.check {
            lastRuleChecks.keep(check, for: id)
            if reportsRuleChecks { actions.append(.ruleChecked(check)) }
        }
        return decision.refusal
    }

    /// The last rules check made for connection `id`'s requests, if any.
    func lastRuleCheck(of id: ConnectionID) -> RuleCheck? {
        lastRuleChecks.check(of: id)
    }

    /// Who a connection acts as now (`none` for a connection that is not open).
    func auth(of id: ConnectionID?) -> ConnectionAuth {
        guard let id else { return .admin }
        return connections[id]?.auth ?? .none
    }
}
