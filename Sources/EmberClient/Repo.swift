import DequeModule
import EmberCore
import EmberStorage
import EmberSync
import EmberWire

/// One client's engine room: its sync tree, its connection, its queues, its listeners.
///
/// Everything runs on the engine, one operation at a time. An operation changes the state and
/// collects the events it raises; the events are delivered afterwards, in order, never inside
/// one another: a listener that writes queues its events behind the ones being delivered.
///
/// - Writes go into the sync tree at once (local events), then into the write queue, which is
///   sent in order whenever a connection is up and dropped write by write as the server answers.
/// - Listens come out of the sync tree through a ``ListenOutbox`` and become `listen`/`unlisten`
///   messages; they are sent again, with the hash of what is cached, on every new connection.
/// - `.info/connected` and `.info/serverTimeOffset` live in a second sync tree fed locally.
final class Repo {
    let name: ClientName
    let environment: any ClientEnvironment
    weak var database: Database?

    var syncTree = SyncTree(listenProvider: ListenOutbox())
    var infoTree = SyncTree(listenProvider: ListenOutbox())
    var infoData = Node.empty

    var connection: ConnectionStateMachine
    var transport: ClientTransport?
    /// Numbers transports, so that events from a replaced one are ignored.
    var transportGeneration = 0
    var nextRequestID = 1
    var requests: [Int: PendingRequest] = [:]

    var nextWriteID = 1
    /// Writes not answered yet, oldest first.
    var outgoingWrites: Deque<OutgoingWrite> = []
    /// The request carrying each sent write on the current connection.
    var writeRequests: [WriteID: Int] = [:]

    /// The server listens the sync tree needs, by query as sent.
    var listens: [QuerySpec: ActiveListen] = [:]
    var listeners: [RegistrationID: Listener] = [:]
    var nextRegistration = 1
    var keepSyncedRegistrations: [QuerySpec: RegistrationID] = [:]

    var transactions: [TransactionRecord] = []
    var nextTransaction = 1

    /// onDisconnect requests made while not connected, sent on the next connection.
    var queuedOnDisconnect: [OnDisconnectRequest] = []
    /// The onDisconnect operations the server accepted on this connection, which the client also
    /// applies to its own cache when the connection goes.
    var registeredOnDisconnect: [(path: Path, operation: OnDisconnectRequest.Operation)] = []

    var pendingGets: [GetRequestID: PendingGet] = [:]
    var nextGet = 1

    var serverTimeOffset: Int64 = 0
    /// The client's lasting identity (its store's, or made for this run without one).
    let identity: String
    /// Identifies this client's session in the keys of its writes and transactions:
    /// `IDENTITY.SESSION`. A new one each run, so its numbers start again from 1.
    let writer: String
    /// The number the next keyed write of this session gets.
    var nextSequence: Int64 = 1
    var pushIDs = PushIDGenerator()

    /// Events and completion calls waiting to be delivered, in order.
    /// (Read and written around every callback; the accesses never overlap.)
    @exclusivity(unchecked) private var deliveries: Deque<Delivery> = []
    /// Whether a delivery of ``deliveries`` is posted to the engine.
    private var deliveryPosted = false

    private enum Delivery {
        case event(Event)
        case call(() -> Void)
    }

    /// Where the cache, the write queue, tracked queries and pins are kept, if anywhere.
    let store: ClientStore?
    /// The last commit of ``store`` that failed (its changes wait for the next one).
    var lastStoreError: StoreError?
    var onStoreError: ((StoreError) -> Void)?

    init(name: ClientName, environment: any ClientEnvironment, reconnect: ReconnectPolicy, store: ClientStore?) {
        self.name = name
        self.environment = environment
        self.store = store
        connection = ConnectionStateMachine(policy: reconnect)
        if let store {
            identity = store.identity
            writer = identity + "." + String(environment.randomNumber(), radix: 36)
        } else {
            // Without a store the identity lives as long as this client: one session.
            identity = String(environment.randomNumber(), radix: 36)
            writer = identity + ".0"
        }
        setInfo(.bool(false), at: Self.connectedPath)
        setInfo(.int(0), at: Self.serverTimeOffsetPath)
    }

    // MARK: Time

    /// The local clock plus the estimated offset of the server's clock.
    var estimatedServerTime: Int64 { environment.clock.now() + serverTimeOffset }

    func newRequestID() -> Int {
        defer { nextRequestID += 1 }
        return nextRequestID
    }

    /// The key of the next keyed write of this session.
    func newWriteKey() -> WriteKey {
        defer { nextSequence += 1 }
        return WriteKey(writer: writer, sequence: nextSequence)
    }

    func newWriteID() -> WriteID {
        defer { nextWriteID += 1 }
        return WriteID(nextWriteID)
    }

    /// A new push id, from the estimated server time.
    func pushID() -> String {
        var random = EnvironmentRandom(environment: environment)
        return pushIDs.next(now: estimatedServerTime, using: &random)
    }

    // MARK: Sending

    /// Sends `message` now if connected; returns whether it went.
    func send(_ message: ClientMessage, as request: PendingRequest) {
        guard connection.state == .connected, let transport else { return }
        requests[message.requestID] = request
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
            }
        }
        deliveryPosted = false
    }

    private func deliver(_ event: Event) {
        guard let listener = listeners[event.registration] else { return }
        switch event.kind {
        case .cancelled(let error):
            listeners[event.registration] = nil
            listener.callback(.cancelled(error))
        default:
            guard let type = event.type, listener.types.contains(type), let node = event.snapshot else { return }
            let path = event.childKey.map { event.query.path.child($0) } ?? event.query.path
            if listener.once { removeListener(event.registration) }
            let snapshot = DataSnapshot(database: database, path: path, node: node, index: event.query.params.index)
            listener.callback(.data(type, snapshot, previousKey: event.previousKey?.name))
        }
    }

    // MARK: Listens

    /// Turns the listens the sync trees asked for into messages (and, for `.info`, into data).
    func processListenRequests() {
        for request in syncTree.listenProvider.take() {
            switch request {
            case .start(let query, let tag):
                let listen = ActiveListen(query: query, tag: tag)
                listens[query] = listen
                sendListen(listen)
            case .stop(let query, let tag):
                guard listens.removeValue(forKey: query) != nil else { continue }
                send(.unlisten(requestID: newRequestID(), query: query, tag: tag?.rawValue), as: .unlisten)
            }
        }
        var events: [Event] = []
        for request in infoTree.listenProvider.take() {
            guard case .start(let query, let tag) = request else { continue }
            // The info tree is always complete: answer the listen at once.
            events += infoTree.applyServerOverwrite(infoData.child(at: query.path), at: query.path)
            if let tag {
                events += infoTree.applyTaggedListenComplete(at: query.path, tag: tag)
            } else {
                events += infoTree.applyListenComplete(at: query.path)
            }
        }
        raise(events)
    }

    func sendListen(_ listen: ActiveListen) {
        let original = listen.tag.flatMap { syncTree.query(for: $0) } ?? listen.query
        let cached = syncTree.serverCache(for: original)
        let hash = cached.map { $0.isEmpty ? "" : $0.hashString } ?? ""
        send(
            .listen(requestID: newRequestID(), query: listen.query, tag: listen.tag?.rawValue, hash: hash),
            as: .listen(listen))
    }

    // MARK: Server messages

    func receive(_ event: TransportEvent<ServerMessage>, generation: Int) {
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
            persistServerData(data, at: path, tag: tag)
            raise(events)
        case .mergeUpdate(let path, let changes, let tag):
            let pairs = changes.map { ($0.path, $0.node) }
            let events =
                if let tag {
                    syncTree.applyTaggedQueryMerge(pairs, at: path, tag: QueryTag(tag))
                } else {
                    syncTree.applyServerMerge(pairs, at: path)
                }
            persistServerMerge(pairs, at: path, tag: tag)
            raise(events)
        case .listenRevoked(let query, let tag, let error):
            cancelListen(ActiveListen(query: query, tag: tag.map(QueryTag.init)), error: error)
        case .ack(let requestID, let status):
            guard let request = requests.removeValue(forKey: requestID) else { return }
            answer(request, status: status)
        case .getResult(let requestID, let result):
            guard case .get(let id)? = requests.removeValue(forKey: requestID) else { return }
            switch result {
            case .data(let node): finishGet(id, serverData: node)
            case .failed(let error): finishGet(id, error: error)
            }
        }
    }

    private func answer(_ request: PendingRequest, status: AckStatus) {
        switch request {
        case .listen(let listen):
            guard listens[listen.query] == listen else { return }
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
        case .unlisten, .resume:
            break
        case .write(let writeID):
            writeAnswered(writeID, status: status)
        case .transactions(let requestID):
            transactionsAnswered(requestID: requestID, status: status)
        case .onDisconnect(let request):
            onDisconnectAnswered(request, status: status)
        case .get:
            break
        }
    }

    /// A listen the server refused or revoked: its listeners are cancelled.
    private func cancelListen(_ listen: ActiveListen, error: DatabaseError) {
        guard listens.removeValue(forKey: listen.query) != nil else { return }
        // Every listener of the query (of every query at the location, for a default listen)
        // gets its cancellation, which also removes it when delivered.
        let query = listen.tag.flatMap { syncTree.query(for: $0) } ?? .default(at: listen.query.path)
        let events = syncTree.removeEventRegistration(nil, for: query, cancelError: error)
        let cancelled = Set(events.map(\.registration))
        keepSyncedRegistrations = keepSyncedRegistrations.filter { !cancelled.contains($0.value) }
        _ = syncTree.listenProvider.take()  // nothing to stop: the server ended it
        raise(events)
    }

    private func jitter() -> Double {
        Double(environment.randomNumber() >> 11) / Double(1 << 53)
    }

    // MARK: Connection

    func perform(_ actions: [ConnectionStateMachine.Action]) {
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
                    guard let self else { return }
                    perform(connection.handle(.reconnectTimerFired(generation: generation)))
                }
            }
        }
    }

    /// Restores the session on a new connection: listens (with hashes of what is cached), then
    /// queued onDisconnect requests, then the write queue in order, then transactions.
    private func connectionEstablished() {
        // By location, then in the order the queries were made (their tags): the same order on
        // every run.
        let ordered = listens.values.sorted {
            $0.query.path != $1.query.path ? $0.query.path < $1.query.path : ($0.tag?.rawValue ?? 0) < ($1.tag?.rawValue ?? 0)
        }
        for listen in ordered {
            sendListen(listen)
        }
        sendResume()
        let onDisconnect = queuedOnDisconnect
        queuedOnDisconnect = []
        for request in onDisconnect {
            send(request.message(requestID: newRequestID()), as: .onDisconnect(request))
        }
        // The writes, and the transactions whose answer the last connection took, in the order
        // of their numbers: the server takes a writer's writes in increasing order.
        var inDoubt = putsInDoubt()[...]
        for write in outgoingWrites {
            if !inDoubt.isEmpty, let key = WriteKey(parsing: write.key), key.writer == writer {
                while let put = inDoubt.first, put.key.sequence < key.sequence {
                    resend(put)
                    inDoubt.removeFirst()
                }
            }
            let requestID = newRequestID()
            writeRequests[write.id] = requestID
            send(write.message(requestID: requestID), as: .write(write.id))
        }
        for put in inDoubt { resend(put) }
        for (id, get) in pendingGets where get.requestID == nil {
            let requestID = newRequestID()
            pendingGets[id]?.requestID = requestID
            send(.get(requestID: requestID, query: get.query), as: .get(id))
        }
        var events = setInfo(.int(serverTimeOffset), at: Self.serverTimeOffsetPath)
        events += setInfo(.bool(true), at: Self.connectedPath)
        raise(events)
        sendTransactions()
    }

    /// Tells the server which of this client's writers it may still send writes of, from which
    /// number on: every writer of a queued write or of a transaction in doubt, and this
    /// session's. The server forgets the rest.
    private func sendResume() {
        var floors: [String: Int64] = [writer: nextSequence]
        func note(_ text: String) {
            guard let key = WriteKey(parsing: text) else { return }
            floors[key.writer] = min(floors[key.writer] ?? .max, key.sequence)
        }
        for write in outgoingWrites { note(write.key) }
        for put in putsInDoubt() { floors[put.key.writer] = min(floors[put.key.writer] ?? .max, put.key.sequence) }
        send(.resume(requestID: newRequestID(), client: identity, writers: floors), as: .resume)
    }

    /// The connection went: unanswered requests are forgotten (the write queue and the listens
    /// stay, to be sent again), the onDisconnect operations the server will run are applied to
    /// the local cache, and `.info/connected` turns false.
    private func connectionLost() {
        let lost = requests
        requests.removeAll()
        writeRequests.removeAll()
        for (id, get) in pendingGets where get.requestID != nil {
            pendingGets[id]?.requestID = nil
            if connection.state == .offline {
                finishGet(id, error: nil)
            } else {
                // Sent again on reconnection, unless the cache must answer first.
                environment.schedule(after: get.connectTimeout) { [weak self] in
                    guard let self, pendingGets[id]?.requestID == nil else { return }
                    finishGet(id, error: nil)
                }
            }
        }
        for index in transactions.indices {
            if case .sent(_, let put, let abortWhenAnswered) = transactions[index].state {
                transactions[index].state = .inDoubt(put: put, abortWhenAnswered: abortWhenAnswered)
            }
        }
        // An onDisconnect request in flight may or may not have been registered (and then has
        // run already, with this connection's end): its completion says so.
        for case .onDisconnect(let request) in lost.values {
            raise([]) { request.completion(.disconnected(at: request.path)) }
        }
        var events = runLocalOnDisconnect()
        events += setInfo(.bool(false), at: Self.connectedPath)
        raise(events)
    }

    // MARK: .info

    static let connectedPath = Path(keys: [.info, "connected"])
    static let serverTimeOffsetPath = Path(keys: [.info, "serverTimeOffset"])

    @discardableResult
    func setInfo(_ value: LeafValue, at path: Path) -> [Event] {
        infoData.set(Node(value), at: path)
        return infoTree.applyServerOverwrite(Node(value), at: path)
    }
}

/// The environment's randomness as a generator.
struct EnvironmentRandom: RandomNumberGenerator {
    let environment: any ClientEnvironment

    mutating func next() -> UInt64 { environment.randomNumber() }
}
