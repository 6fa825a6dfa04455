import DequeModule
import EmberCore
import EmberStorage
import EmberSync
import EmberWire

/// One client's coordinator: it holds the sync tree and the connection, and hands each kind of
/// work to the owner that keeps its state.
///
/// | owner | state |
/// |---|---|
/// | ``ClientSession`` | identity, writer, write ids and keys, push ids |
/// | ``RequestTable`` | requests in flight on this connection |
/// | ``WriteQueue`` | writes not answered yet, and their requests |
/// | ``ServerListens`` | listens held on the server |
/// | ``ListenerTable`` | listeners and keep-synced pins |
/// | ``TransactionQueue`` | running transactions (a state machine returning actions) |
/// | ``OnDisconnectQueue`` | onDisconnect operations queued and accepted |
/// | ``PendingGets`` | gets waiting for the server |
/// | ``ClientAuth`` | the token, and whether the server takes it |
/// | ``InfoTree`` | `.info` data and its listeners |
/// | ``ClientPersistence`` | the store and its last failure |
///
/// Everything runs on the engine, one operation at a time. An operation changes the state and
/// collects the events it raises; the events are delivered afterwards, in order, never inside
/// one another: a listener that writes queues its events behind the ones being delivered.
final class Repo {
    let name: ClientName
    let environment: any ClientEnvironment
    weak var database: Database?

    /// The client's view of the data: server cache, pending writes, views and their listeners.
    var syncTree = SyncTree(listenProvider: ListenOutbox())
    var info = InfoTree()
    private(set) var connection: ConnectionStateMachine
    private var transport: ClientTransport?
    /// Numbers transports, so that events from a replaced one are ignored.
    private var transportGeneration = 0

    var session: ClientSession
    var requests = RequestTable()
    var writes = WriteQueue()
    var listens = ServerListens()
    var listeners = ListenerTable()
    var transactions = TransactionQueue()
    var onDisconnects = OnDisconnectQueue()
    var gets = PendingGets()
    var auth = ClientAuth()
    let persistence: ClientPersistence

    /// The estimated difference between the server's clock and the local one.
    private(set) var serverTimeOffset: Int64 = 0

    /// Events and completion calls waiting to be delivered, in order.
    /// (Read and written around every callback; the accesses never overlap.)
    @exclusivity(unchecked) private var deliveries: Deque<Delivery> = []
    /// Whether a delivery of ``deliveries`` is posted to the engine.
    private var deliveryPosted = false

    private enum Delivery {
        case event(Event)
        case call(() -> Void)
        /// A completion and its answer, held as they are (a closure calling it allocated a
        /// context holding the whole write for every answered write).
        case answer((DatabaseError?) -> Void, DatabaseError?)
    }

    init(name: ClientName, environment: any ClientEnvironment, reconnect: ReconnectPolicy, store: ClientStore?) {
        self.name = name
        self.environment = environment
        persistence = ClientPersistence(store: store)
        connection = ConnectionStateMachine(policy: reconnect)
        session = ClientSession(identity: store?.identity, random: environment.randomNumber())
        info.set(.bool(false), at: InfoTree.connectedPath)
        info.set(.int(0), at: InfoTree.serverTimeOffsetPath)
    }

    // MARK: Time and numbers

    /// The local clock plus the estimated offset of the server's clock.
    var estimatedServerTime: Int64 { environment.clock.now() + serverTimeOffset }

    /// A new push id, from the estimated server time.
    func pushID() -> String {
        var random = EnvironmentRandom(environment: environment)
        return session.pushID(now: estimatedServerTime, using: &random)
    }

    // MARK: Sending

    /// Sends `message` now if connected (recording what its answer means); otherwise nothing
    /// goes, and the owner of the work sends it again on the next connection.
    func send(_ message: ClientMessage, as request: PendingRequest) {
        guard connection.state == .connected, let transport else { return }
        requests.sent(message.requestID, as: request)
        transport.send(message)
    }

    // MARK: Events

    /// Queues `events` for their listeners, then `completion`, and posts their delivery to the
    /// engine: they run when the current operation is over, in order, never inside an operation
    /// or inside one another (a listener that writes queues its events behind the ones being
    /// delivered).
    func raise(_ events: [Event], then completion: (() -> Void)? = nil) {
        guard !events.isEmpty || completion != nil else { return }
        for event in events { deliveries.append(.event(event)) }
        if let completion { deliveries.append(.call(completion)) }
        postDelivery()
    }

    /// Queues `events`, then `completion` called with `error`, as ``raise(_:then:)`` does.
    func raise(_ events: [Event], answering completion: @escaping (DatabaseError?) -> Void, with error: DatabaseError?) {
        for event in events { deliveries.append(.event(event)) }
        deliveries.append(.answer(completion, error))
        postDelivery()
    }

    /// Posts the delivery of ``deliveries`` to the engine, unless it is posted already.
    private func postDelivery() {
        guard !deliveryPosted else { return }
        deliveryPosted = true
        environment.post(deliverQueuedCallback)
    }

    /// ``deliverQueued()`` as the callback posted to the engine, made once (a write does not
    /// allocate a new closure to post).
    private lazy var deliverQueuedCallback: () -> Void = { [weak self] in self?.deliverQueued() }

    /// Called by every public operation as it returns: when the caller is outside the engine's
    /// own work (its code, not a callback), the operation's local events are delivered now, after
    /// the operation is over and before it returns, as Firebase's JS SDK does
    /// (`packages/database/src/core/view/EventQueue.ts`, `eventQueueRaiseEventsForChangedPath`).
    /// Inside a callback they stay queued behind the current delivery.
    func deliverLocalEvents() {
        environment.deliverPosted()
    }

    /// Delivers what is queued, including what the deliveries queue in turn.
    private func deliverQueued() {
        while let delivery = deliveries.popFirst() {
            switch delivery {
            case .event(let event): deliver(event)
            case .call(let call): call()
            case .answer(let completion, let error): completion(error)
            }
        }
        deliveryPosted = false
    }

    private func deliver(_ event: Event) {
        guard let listener = listeners[event.registration] else { return }
        switch event.kind {
        case .cancelled(let error):
            _ = listeners.remove(event.registration)
            listener.callback(.cancelled(error))
        default:
            guard let type = event.type, listener.accepts(type), let node = event.snapshot else { return }
            let path = event.childKey.map { event.query.path.child($0) } ?? event.query.path
            if listener.once { removeListener(event.registration) }
            let snapshot = DataSnapshot(
                database: database, path: path, node: node, index: event.query.params.index, origin: event.origin)
            listener.callback(.data(type, snapshot, previousKey: event.previousKey?.name))
        }
    }

    // MARK: Listens

    /// Turns the listens the sync tree asked for into messages.
    func processListenRequests() {
        for request in syncTree.listenProvider.take() {
            switch request {
            case .start(let query, let tag):
                sendListen(listens.start(query, tag: tag))
            case .stop(let query, let tag):
                guard listens.stop(query) else { continue }
                send(.unlisten(requestID: requests.newID(), query: query, tag: tag?.rawValue), as: .unlisten)
            }
        }
    }

    /// Sends a listen with the hash of what is cached for it ("" for nothing).
    private func sendListen(_ listen: ActiveListen) {
        let original = listen.tag.flatMap { syncTree.query(for: $0) } ?? listen.query
        let cached = syncTree.serverCache(for: original)
        let hash = cached.map { $0.isEmpty ? "" : $0.hashString } ?? ""
        send(
            .listen(requestID: requests.newID(), query: listen.query, tag: listen.tag?.rawValue, hash: hash),
            as: .listen(listen))
    }

    // MARK: Server messages

    private func receive(_ event: TransportEvent<ServerMessage>, generation: Int) {
        guard generation == transportGeneration else { return }
        switch event {
        case .closed:
            transport = nil
            perform(connection.handle(.transportClosed(jitter: jitter())))
        case .received(let message):
            handle(message)
        }
    }

    private func handle(_ message: ServerMessage) {
        switch message {
        case .handshake(let serverTime):
            serverTimeOffset = serverTime - environment.clock.now()
            perform(connection.handle(.handshake))
        case .dataUpdate(let path, let data, let tag):
            let events =
                if let tag {
                    syncTree.applyTaggedQueryOverwrite(data, at: path, tag: QueryTag(tag))
                } else {
                    syncTree.applyServerOverwrite(data, at: path)
                }
            persistence.keepServerData(data, at: path, filtered: tag != nil)
            if let tag { trackWindow(tag: tag) }
            raise(events)
        case .mergeUpdate(let path, let changes, let tag):
            let pairs = changes.map { ($0.path, $0.node) }
            let events =
                if let tag {
                    syncTree.applyTaggedQueryMerge(pairs, at: path, tag: QueryTag(tag))
                } else {
                    syncTree.applyServerMerge(pairs, at: path)
                }
            persistence.keepServerMerge(pairs, at: path)
            if let tag { trackWindow(tag: tag) }
            raise(events)
        case .listenRevoked(let query, let tag, let error):
            cancelListen(ActiveListen(query: query, tag: tag.map(QueryTag.init)), error: error)
        case .authRevoked(let error):
            authRevoked(error)
        case .ack(let requestID, let status):
            guard let request = requests.take(requestID) else { return }
            answer(request, status: status)
        case .getResult(let requestID, let result):
            guard case .get(let id)? = requests.take(requestID) else { return }
            switch result {
            case .data(let node): finishGet(id, serverData: node)
            case .failed(let error): finishGet(id, error: error)
            }
        }
    }

    private func answer(_ request: PendingRequest, status: AckStatus) {
        switch request {
        case .listen(let listen):
            guard listens.holds(listen) else { return }
            switch status {
            case .ok:
                if let tag = listen.tag {
                    raise(syncTree.applyTaggedListenComplete(at: listen.query.path, tag: tag))
                } else {
                    raise(syncTree.applyListenComplete(at: listen.query.path))
                }
                persistListenComplete(listen)
            case .failed(let error):
                cancelListen(listen, error: error)
            }
        case .unlisten, .resume, .get, .unauth:
            break
        case .auth(let token):
            authAnswered(token, status: status)
        case .write(let writeID):
            writeAnswered(writeID, status: status)
        case .transactions(let requestID):
            perform(transactions.answered(requestID: requestID, status: status))
            sendTransactions()
        case .onDisconnect(let request):
            onDisconnectAnswered(request, status: status)
        }
    }

    /// A listen the server refused or revoked: its listeners are cancelled.
    private func cancelListen(_ listen: ActiveListen, error: DatabaseError) {
        guard listens.stop(listen.query) else { return }
        // Every listener of the query (of every query at the location, for a default listen)
        // gets its cancellation, which also removes it when delivered.
        let query = listen.tag.flatMap { syncTree.query(for: $0) } ?? .default(at: listen.query.path)
        let events = syncTree.removeEventRegistration(nil, for: query, cancelError: error)
        listeners.forgetKeepSynced(Set(events.map(\.registration)))
        _ = syncTree.listenProvider.take()  // nothing to stop: the server ended it
        raise(events)
    }

    private func jitter() -> Double {
        Double(environment.randomNumber() >> 11) / Double(1 << 53)
    }

    // MARK: Connection

    /// Where the connection stands.
    var connectionState: ConnectionState { connection.state }

    /// Feeds the connection's state machine and performs what it returns.
    func connection(_ input: ConnectionStateMachine.Input) {
        perform(connection.handle(input))
    }

    private func perform(_ actions: [ConnectionStateMachine.Action]) {
        for action in actions {
            switch action {
            case .openTransport:
                transportGeneration += 1
                let generation = transportGeneration
                let transport = environment.connect()
                self.transport = transport
                transport.onEvent = { [weak self] event in self?.receive(event, generation: generation) }
            case .closeTransport:
                transportGeneration += 1
                transport?.close()
                transport = nil
            case .connectionEstablished:
                connectionEstablished()
            case .connectionLost:
                connectionLost()
            case .scheduleReconnect(let delay, let generation):
                environment.schedule(after: delay) { [weak self] in
                    self?.connection(.reconnectTimerFired(generation: generation))
                }
            }
        }
    }

    /// Restores the session on a new connection: the token, listens (with hashes of what is
    /// cached), the writers it may still send, queued onDisconnect requests, the write queue in
    /// order (the transactions in doubt among them by number), unsent gets, `.info`, then
    /// transactions. While the token has expired, the writes (onDisconnect requests and
    /// transactions among them) wait.
    private func connectionEstablished() {
        sendAuth()
        for listen in listens.ordered { sendListen(listen) }
        sendResume()
        sendQueuedWrites(andTransactions: false)
        for (id, get) in gets.unsent {
            let requestID = requests.newID()
            gets.sent(id, as: requestID)
            send(.get(requestID: requestID, query: get.query), as: .get(id))
        }
        var events = info.set(.int(serverTimeOffset), at: InfoTree.serverTimeOffsetPath)
        events += info.set(.bool(true), at: InfoTree.connectedPath)
        raise(events)
        sendTransactions()
    }

    /// Sends the queued onDisconnect requests and the writes not sent on this connection, with
    /// the transactions whose answer the last connection took, in the order of their numbers
    /// (the server takes a writer's writes in increasing order); then, unless told otherwise,
    /// the transactions. Nothing goes while the writes are held for a new token.
    func sendQueuedWrites(andTransactions: Bool = true) {
        guard sendsWrites else { return }
        for request in onDisconnects.takeQueued() {
            send(request.message(requestID: requests.newID()), as: .onDisconnect(request))
        }
        var inDoubt = transactions.putsInDoubt()[...]
        for write in writes.all where !write.isSent {
            if !inDoubt.isEmpty, case .keyed(let key) = write.key, key.writer == session.writer {
                while let put = inDoubt.first, put.key.sequence < key.sequence {
                    resend(put)
                    inDoubt.removeFirst()
                }
            }
            sendWrite(write)
        }
        for put in inDoubt { resend(put) }
        if andTransactions { sendTransactions() }
    }

    /// Tells the server which of this client's writers it may still send writes of, from which
    /// number on: every writer of a queued write or of a transaction in doubt, and this
    /// session's. The server forgets the rest.
    private func sendResume() {
        // The server forgets the writers left out: a removal of one of their answered writes
        // must not be lost to a crash of the machine after that (it would be sent again).
        persistence.syncRemovals()
        var floors: [String: Int64] = [session.writer: session.nextSequence]
        func note(_ key: WriteKey) { floors[key.writer] = min(floors[key.writer] ?? .max, key.sequence) }
        for write in writes.all { if case .keyed(let key) = write.key { note(key) } }
        for put in transactions.putsInDoubt() { note(put.key) }
        send(.resume(requestID: requests.newID(), client: session.identity, writers: floors), as: .resume)
    }

    /// The connection went: unanswered requests are forgotten (the write queue and the listens
    /// stay, to be sent again), the onDisconnect operations the server will run are applied to
    /// the local cache, and `.info/connected` turns false.
    private func connectionLost() {
        let lost = requests.takeAll()
        writes.connectionLost()
        for (id, get) in gets.connectionLost() {
            if connection.state == .offline {
                finishGet(id, error: nil)
            } else {
                // Sent again on reconnection, unless the cache must answer first.
                environment.schedule(after: get.connectTimeout) { [weak self] in
                    guard let self, gets.isWaitingForConnection(id) else { return }
                    finishGet(id, error: nil)
                }
            }
        }
        transactions.connectionLost()
        // An onDisconnect request in flight may or may not have been registered (and then has
        // run already, with this connection's end): its completion says so.
        for case .onDisconnect(let request) in lost {
            raise([]) { request.completion(.disconnected(at: request.path)) }
        }
        var events = runLocalOnDisconnect()
        events += info.set(.bool(false), at: InfoTree.connectedPath)
        raise(events)
    }
}

/// The environment's randomness as a generator.
struct EnvironmentRandom: RandomNumberGenerator {
    let environment: any ClientEnvironment

    mutating func next() -> UInt64 { environment.randomNumber() }
}
