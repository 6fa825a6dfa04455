import EmberCore
import EmberEngine
import EmberInstance
import EmberRules
import EmberServer
import EmberStorage
import EmberWire
import NIOCore
import Synchronization

/// One namespace's database as the network serves it: an ``Ember``'s server, run by an engine
/// thread of its own (`ember serve`), or by the engine of the shell that holds it (its local
/// socket, for a second terminal).
///
/// The network's event loops never touch the database: they hand work to its engine with
/// ``submit(_:)`` or ``run(_:)``, which runs it in order with everything else the engine does
/// (messages, timers, the tick that commits). Everything `ServedDatabase` holds is confined to
/// the engine's thread; the class is `Sendable` only so that other threads can submit.
public final class ServedDatabase: @unchecked Sendable {
    /// The namespace's name (`ns`).
    public let namespace: String
    private let ember: Ember
    private let runner: Runner
    /// What its WebSockets send, written at the end of each engine tick (the engine's).
    let outbox = RealtimeOutbox()
    /// Each event loop's batch of the messages it read this turn (made on first use).
    private let batches = Mutex<[ObjectIdentifier: InboundBatch]>([:])
    /// For a shell session's viewer (`view`): what `/.ember/session.json?since=N` answers (the
    /// session's clients and the protocol messages after number N), run on the engine's thread;
    /// `nil` for `ember serve`, which has no session.
    public nonisolated(unsafe) var sessionReport: ((Int) -> String)?
    /// The last rules checks of every connection, for the viewer of `ember serve` (engine
    /// thread): kept from its first request on (the server reports checks only while someone
    /// listens, so a server nobody views pays nothing).
    private var ruleChecks: [RuleCheck] = []
    private var keepsRuleChecks = false
    /// Revokes sign-ins whose tokens expire (made on the engine's thread).
    private var expiryWatch: TokenExpiryWatch?
    /// Push ids for REST `POST`s.
    private let pushIDs = Mutex(PushIDGenerator())

    /// Who runs the engine.
    private enum Runner: Sendable {
        /// A thread of the database's own, stopped when it closes; `inline`: a submission runs
        /// at once on the submitting thread when the engine is idle (``EngineThread/run(_:)``).
        case ownThread(EngineThread, inline: Bool)
        /// Its owner (an interactive shell), which closes it too.
        case owner(Engine)
    }

    /// Opens the namespace's database and starts its engine thread.
    /// - Parameters:
    ///   - rules: rules to put in force (and save); `nil` keeps the stored ones.
    ///   - writesRefused: when set, the server refuses every write with this reason
    ///     (``Server/writesRefused``): the database of namespaces that do not exist.
    /// - Throws: ``StoreError`` naming the file when the database cannot be opened.
    init(namespace: String, persistence: Persistence, rules: Ruleset?, writesRefused: String? = nil) throws(StoreError) {
        self.namespace = namespace
        ember = try Ember(persistence: persistence, rules: rules)
        ember.server.writesRefused = writesRefused
        let thread = EngineThread(engine: ember.engine)
        // In memory, the work a message causes is short: it runs on the event loop that read
        // the message when the engine is idle. With a store, the end of a tick commits (and may
        // wait for the disk), which an event loop must not: the engine's thread does it.
        let inline = if case .memory = persistence { true } else { false }
        runner = .ownThread(thread, inline: inline)
        thread.start()
        addOutbox()
    }

    /// Serves the server of `ember`, which its owner runs and closes (a shell's instance).
    /// - Precondition: `ember`'s server is embedded.
    public init(namespace: String, owner ember: Ember) {
        self.namespace = namespace
        self.ember = ember
        runner = .owner(ember.engine)
        addOutbox()
    }

    /// The outbox ends its tick after the server's (added after it), so that what the server
    /// held back for a commit goes out in the same tick.
    private func addOutbox() {
        schedule { [self] in
            ember.engine.add(outbox)
            let watch = TokenExpiryWatch(server: ember.server, engine: ember.engine)
            expiryWatch = watch
            ember.engine.add(watch)
        }
    }

    /// What `/.ember/session.json` answers for `ember serve` (engine thread): no clients, no
    /// messages, and the last rules checks of every connection with the decision and the rule
    /// that made it (as `explain` words it). The first request starts keeping them.
    func rulesReport() -> String {
        // A shell's database (its local socket) has the shell's own hook on the server's checks.
        guard case .ownThread = runner else {
            return #"{"clients":[],"messages":[],"next":0,"rules":[]}"#
        }
        if !keepsRuleChecks {
            keepsRuleChecks = true
            ember.server.onRuleCheck = { [weak self] check in
                guard let self else { return }
                ruleChecks.append(check)
                if ruleChecks.count > 100 { ruleChecks.removeFirst(ruleChecks.count - 100) }
            }
        }
        let rules = ruleChecks.suffix(50).map { check -> JSONValue in
            let explanation = check.decisions.flatMap { $0.explanation(as: check.who) }
            return .object([
                ("client", .string(check.connection.description)), ("allowed", .bool(check.allowed)),
                ("decision", .string(explanation.first ?? "")), ("explanation", .array(explanation.dropFirst().map(JSONValue.string))),
            ])
        }
        return JSONValue.object([("clients", .array([])), ("messages", .array([])), ("next", .int(0)), ("rules", .array(rules))]).serialized()
    }

    /// Runs `body` on the engine's thread, in order with all other work.
    public func submit(_ body: @escaping @Sendable (ServedDatabase.Access) -> Void) {
        schedule { [self] in body(Access(database: self)) }
    }

    /// The batch of `loop`'s messages for this database (``InboundBatch``). Any thread; use it on
    /// `loop`.
    func inboundBatch(for loop: any EventLoop) -> InboundBatch {
        batches.withLock { batches in
            if let batch = batches[ObjectIdentifier(loop)] { return batch }
            let batch = InboundBatch(loop: loop, database: self)
            batches[ObjectIdentifier(loop)] = batch
            return batch
        }
    }

    /// Runs `body` on the engine's thread and returns its result, without blocking the caller's
    /// thread.
    public func run<T: Sendable>(_ body: @escaping @Sendable (ServedDatabase.Access) -> T) async -> T {
        await withCheckedContinuation { continuation in
            schedule { [self] in continuation.resume(returning: body(Access(database: self))) }
        }
    }

    private func schedule(_ work: @escaping @Sendable () -> Void) {
        switch runner {
        case .ownThread(let thread, inline: true): thread.run(work)
        case .ownThread(let thread, inline: false): thread.submit(work)
        case .owner(let engine): engine.submit(work)
        }
    }

    /// Commits, closes the store and stops the engine thread (a database its owner runs is left
    /// to its owner: only the outbox leaves its engine). Any thread but the engine's.
    /// - Throws: ``StoreError`` when the last commit fails.
    func close() throws(StoreError) {
        guard case .ownThread(let thread, _) = runner else {
            // Captures self until it has run: the engine holds the outbox unretained.
            schedule { [self] in
                ember.engine.remove(outbox)
                if let expiryWatch { ember.engine.remove(expiryWatch) }
            }
            return
        }
        let result: Result<Void, StoreError> = thread.perform { [self] in
            defer {
                // What the last commit released goes out, then the outbox leaves.
                outbox.endTick()
                ember.engine.remove(outbox)
                if let expiryWatch { ember.engine.remove(expiryWatch) }
            }
            do throws(StoreError) {
                try ember.close()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        thread.stop()
        try result.get()
    }

    /// What work on the engine thread may use: valid only inside the closure it is given to.
    public struct Access {
        fileprivate let database: ServedDatabase

        /// The instance (its server, engine and clock).
        public var ember: Ember { database.ember }
        /// The server.
        public var server: Server { database.ember.server }
    }

    /// A new push id (for REST `POST`), from the system clock. Any thread.
    func nextPushID() -> String {
        pushIDs.withLock { generator in
            var random = SystemRandomNumberGenerator()
            return generator.next(now: SystemClock().now(), using: &random)
        }
    }

    // MARK: Requests on connections of their own

    /// Reads `query` once, on a connection of its own signed in as `signIn` says (a
    /// ``ServerClient``).
    func get(_ query: QuerySpec, signingIn signIn: ServerSignIn?) async -> Result<Node, DatabaseError> {
        await request(signingIn: signIn) { client, answer in client.get(query, then: answer) }
    }

    /// Replaces the value at `path` (`hash`: only if the value there has it), on a connection
    /// of its own signed in as `signIn` says.
    func put(_ node: Node, at path: Path, hash: String?, signingIn signIn: ServerSignIn?) async -> AckStatus {
        await request(signingIn: signIn) { client, answer in client.put(node, at: path, hash: hash, then: answer) }
    }

    /// Sets several paths below `path` at once, on a connection of its own signed in as
    /// `signIn` says.
    func merge(_ changes: [WireChange], at path: Path, signingIn signIn: ServerSignIn?) async -> AckStatus {
        await request(signingIn: signIn) { client, answer in client.merge(changes, at: path, then: answer) }
    }

    /// Runs one request of a ``ServerClient`` made for it on the engine's thread, and closes
    /// the client's connection once it is answered.
    private func request<Answer: Sendable>(
        signingIn signIn: ServerSignIn?, _ body: @escaping @Sendable (ServerClient, @escaping (Answer) -> Void) -> Void
    ) async -> Answer {
        await withCheckedContinuation { continuation in
            schedule { [self] in
                let engine = ember.engine
                let client = ServerClient(server: ember.server, signingIn: signIn, later: { engine.post($0) })
                var answered = false
                body(client) { answer in
                    guard !answered else { return }
                    answered = true
                    continuation.resume(returning: answer)
                    engine.post { client.close() }
                }
            }
        }
    }

    /// The server's data at `path`, on the engine's thread only (a stream's listen callback):
    /// what a shallow stream reads of a child that changed below.
    func valueOnEngineThread(at path: Path) -> Node {
        ember.server.value(at: path)
    }

    /// Listens to `query` on a connection of its own (a ``ServerClient``), signed in as
    /// `signIn` says, and hands its answer and every update to `onEvent` (on the engine
    /// thread). ``EventStreamHandle/close()`` ends it.
    func listen(
        _ query: QuerySpec, signingIn signIn: ServerSignIn?, onEvent: @escaping @Sendable (ServerListenEvent) -> Void
    ) -> EventStreamHandle {
        let handle = EventStreamHandle(database: self)
        schedule { [self] in
            let engine = ember.engine
            let client = ServerClient(server: ember.server, signingIn: signIn, later: { engine.post($0) })
            handle.client = client
            client.listen(query, onEvent: onEvent)
        }
        return handle
    }

}

/// An event stream's server connection, closed when the stream ends.
final class EventStreamHandle: @unchecked Sendable {
    private let database: ServedDatabase
    /// Set on the engine thread when the connection is opened; used there only.
    var client: ServerClient?

    init(database: ServedDatabase) {
        self.database = database
    }

    /// Closes the connection (its listen ends).
    func close() {
        database.submit { [self] _ in
            guard let client else { return }
            self.client = nil
            client.close()
        }
    }
}
