import EmberCore
import EmberWire

/// A typed client of a ``Server`` on a connection of its own, for requests that do not come
/// over the realtime protocol (REST's reads, writes and event streams): it signs in first,
/// numbers its requests itself and hands each answer back as a value of its own type (a read's
/// data, a write's ``AckStatus``, a listen's ``ServerListenEvent``s).
///
/// Its requests wait for the sign-in's answer: one the server refuses answers every request
/// with the refusal, and none reaches the server as someone else. Confined to the server's
/// (engine) thread; answers arrive there. ``close()`` ends the connection (its listen with it).
public final class ServerClient {
    private let server: Server
    private let link = Link()
    /// Runs work after the server's current sending is over (the engine's `post`): what
    /// follows the sign-in's answer is not sent from inside it.
    private let later: (@escaping () -> Void) -> Void
    /// The connection's id on the server.
    public private(set) var connection: ConnectionID
    private var nextRequest = 1
    /// Where the answer of each request in flight goes, by its number.
    private var pending: [Int: (ServerMessage) -> Void] = [:]
    /// Where a listen's updates go.
    private var onListenEvent: ((ServerListenEvent) -> Void)?
    private var signIn: SignInState

    /// Where the sign-in stands.
    private enum SignInState {
        /// Answered `ok` (or none was asked): requests go at once.
        case done
        /// Not answered yet: these requests wait for it.
        case waiting([() -> Void])
        /// Refused: every request is answered with this.
        case refused(DatabaseError)
    }

    /// Opens a connection to `server` (on its thread) and signs in as `signIn` says.
    public init(server: Server, signingIn signIn: ServerSignIn?, later: @escaping (@escaping () -> Void) -> Void) {
        self.server = server
        self.later = later
        self.signIn = signIn == nil ? .done : .waiting([])
        connection = server.accept(link)
        link.onMessage = { [self] message in receive(message) }
        guard let signIn else { return }
        let request = nextRequestID()
        pending[request] = { [self] answer in
            guard case .ack(_, let status) = answer else { return }
            switch (status, self.signIn) {
            case (.ok, .waiting(let queued)):
                self.signIn = .done
                self.later { for send in queued { send() } }
            case (.failed(let error), .waiting(let queued)):
                self.signIn = .refused(error)
                for send in queued { send() }
            default:
                break
            }
        }
        switch signIn {
        case .user(let token): link.deliver(.auth(requestID: request, token: token))
        case .admin(let credential, let override): link.deliver(.adminAuth(requestID: request, credential: credential, override: override))
        }
    }

    /// Reads `query` once.
    public func get(_ query: QuerySpec, then answer: @escaping (Result<Node, DatabaseError>) -> Void) {
        send(refused: { answer(.failure($0)) }) { [self] in
            let request = nextRequestID()
            pending[request] = { message in
                if case .getResult(_, let result) = message {
                    switch result {
                    case .data(let node): answer(.success(node))
                    case .failed(let error): answer(.failure(error))
                    }
                }
            }
            link.deliver(.get(requestID: request, query: query))
        }
    }

    /// Replaces the value at `path` (`hash`: only if the value there has this hash).
    public func put(_ node: Node, at path: Path, hash: String? = nil, then answer: @escaping (AckStatus) -> Void) {
        send(refused: { answer(.failed($0)) }) { [self] in
            link.deliver(.put(requestID: expectAck(answer), path: path, data: node, hash: hash))
        }
    }

    /// Sets several paths below `path` at once: all or none.
    public func merge(_ changes: [WireChange], at path: Path, then answer: @escaping (AckStatus) -> Void) {
        send(refused: { answer(.failed($0)) }) { [self] in
            link.deliver(.merge(requestID: expectAck(answer), path: path, changes: changes))
        }
    }

    /// Listens to `query` (one listen a client): its answer and every update go to `onEvent`.
    public func listen(_ query: QuerySpec, onEvent: @escaping (ServerListenEvent) -> Void) {
        onListenEvent = onEvent
        send(refused: { onEvent(.answered(.failed($0))) }) { [self] in
            let request = expectAck { onEvent(.answered($0)) }
            link.deliver(.listen(requestID: request, query: query, tag: query.loadsAllData ? nil : 1, hash: ""))
        }
    }

    /// Ends the connection: its listen ends, and answers still due are dropped.
    public func close() {
        pending.removeAll()
        onListenEvent = nil
        server.close(connection)
    }

    // MARK: Parts

    private func nextRequestID() -> Int {
        defer { nextRequest += 1 }
        return nextRequest
    }

    /// Numbers a request answered by an `ack`, whose status goes to `answer`.
    private func expectAck(_ answer: @escaping (AckStatus) -> Void) -> Int {
        let request = nextRequestID()
        pending[request] = { message in
            if case .ack(_, let status) = message { answer(status) }
        }
        return request
    }

    /// Sends a request now, after the sign-in's answer, or not at all when it was refused.
    private func send(refused: @escaping (DatabaseError) -> Void, _ body: @escaping () -> Void) {
        switch signIn {
        case .done: body()
        case .waiting(var queued):
            queued.append { [self] in
                if case .refused(let error) = signIn { refused(error) } else { body() }
            }
            signIn = .waiting(queued)
        case .refused(let error): refused(error)
        }
    }

    private func receive(_ message: ServerMessage) {
        switch message {
        case .handshake:
            break
        case .ack(let request, _), .getResult(let request, _):
            pending.removeValue(forKey: request)?(message)
        case .dataUpdate(let path, let data, _):
            onListenEvent?(.data(path, data))
        case .mergeUpdate(let path, let changes, _):
            onListenEvent?(.merge(path, changes))
        case .listenRevoked(_, _, let error):
            onListenEvent?(.revoked(error))
        case .authRevoked(let error):
            onListenEvent?(.signedOut(error))
        }
    }

    /// The client's end of the connection, as the server sees it.
    private final class Link: Transport {
        typealias Outgoing = ServerMessage
        typealias Incoming = ClientMessage

        var onEvent: ((TransportEvent<ClientMessage>) -> Void)?
        /// Called with every message the server sends.
        var onMessage: (ServerMessage) -> Void = { _ in }

        func send(_ message: ServerMessage) { onMessage(message) }

        /// The server closed the connection: its handlers go, and what they hold with them.
        func close() {
            onMessage = { _ in }
            onEvent = nil
        }

        /// Hands `message` to the server.
        func deliver(_ message: ClientMessage) { onEvent?(.received(message)) }
    }
}
