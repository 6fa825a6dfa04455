import EmberCore
import EmberEngine
import EmberInstance
import EmberNetworkShared
import EmberWire
import NIOCore
import NIOWebSocket

/// One client's connection to a ``WebSocketRemote``: a ``RemoteConnection`` whose messages
/// travel as the realtime protocol v5 over a WebSocket.
///
/// Two halves. On the engine's thread (where the client calls it and hears from it): a
/// ``RealtimeClientSession`` turns messages into text and back, and every request not yet
/// answered counts as a message in flight on the engine, so that waiting for every answer
/// (`flush`, the shell's end of a command) waits for the server too. On a task of its own: the
/// socket, written from a stream of commands and read frame by frame, each frame submitted to
/// the engine in order. The connection's hello counts as in flight until it arrives.
final class WebSocketConnection: RemoteConnection, Transport, @unchecked Sendable {
    var onEvent: ((TransportEvent<ServerMessage>) -> Void)?
    var onFrame: ((ProtocolDirection, String) -> Void)?
    var transport: ClientTransport { self }

    /// What the socket task is asked to do.
    private enum Command: Sendable {
        case text(String)
        case pong(ByteBuffer)
        /// Say goodbye (a close frame) and close.
        case close
        /// Fall silent: no goodbye, no close; the socket is closed once the server closes it.
        case drop
    }

    private enum State {
        case open
        case ended
    }

    private let engine: Engine
    private weak var remote: WebSocketRemote?
    private let address: RemoteAddress
    /// Engine thread only.
    private var session = RealtimeClientSession()
    private var state = State.open
    /// How many messages this connection counts as in flight on the engine.
    private var counted = 0
    private let commands: AsyncStream<Command>.Continuation
    /// The server's hello, held while the administrator's credential is being presented.
    private var heldHandshake: ServerMessage?

    /// The request number of the administrator's `gauth`: one the client never uses (its
    /// numbers count up from 1).
    static let adminRequestID = Int(Int32.max)

    /// How often a quiet connection says it is alive: Firebase's clients send "0" after 45 s
    /// (firebase-js-sdk `WebSocketConnection.ts`, `resetKeepAlive`).
    static let keepAliveInterval: Duration = .seconds(45)
    /// How long the server has to say hello, in milliseconds.
    static let helloTimeout: Int64 = 30_000

    init(address: RemoteAddress, engine: Engine, remote: WebSocketRemote) {
        self.address = address
        self.engine = engine
        self.remote = remote
        let (stream, continuation) = AsyncStream.makeStream(of: Command.self)
        commands = continuation
        engine.addExternalSource()
        count()
        Task.detached { [self] in await run(stream) }
        // A server that takes the connection but never says hello does not hold the client.
        engine.schedule(after: Self.helloTimeout) { [weak self] in
            guard let self, state == .open, !session.isOpen else { return }
            socketEnded(problem: "\(self.address.text) accepted the connection but sent no hello within \(Self.helloTimeout / 1000) s")
        }
    }

    // MARK: Engine thread

    func send(_ message: ClientMessage) {
        guard state == .open, heldHandshake == nil else { return }
        put(message)
    }

    private func put(_ message: ClientMessage) {
        switch session.send(message) {
        case .send(let text):
            onFrame?(.toServer, text)
            for frame in RealtimeCodec.frames(text) { commands.yield(.text(frame)) }
            count()
        case .answer(let reply):
            // Answered here, but never inside the caller's operation: as a message.
            engine.schedule(after: 0, .message) { [self] in
                guard state == .open else { return }
                onEvent?(.received(reply))
            }
        }
    }

    func close() {
        guard state == .open else { return }
        end()
        commands.yield(.close)
        commands.finish()
    }

    func drop() {
        guard state == .open else { return }
        end()
        commands.yield(.drop)
        commands.finish()
        // The client hears of it at once, as when its socket dies.
        engine.schedule(after: 0, .message) { [self] in onEvent?(.closed) }
    }

    /// A frame arrived.
    private func received(_ frame: String) {
        guard state == .open else { return }
        onFrame?(.toClient, frame)
        for incoming in session.receive(frame: frame) {
            guard state == .open else { return }
            switch incoming {
            case .message(.handshake(let serverTime)) where remote?.adminCredential != nil:
                // Signed in as administrator first: everything the client sends comes after.
                heldHandshake = .handshake(serverTime: serverTime)
                put(.adminAuth(requestID: Self.adminRequestID, credential: remote?.adminCredential ?? "", override: .none))
            case .message(.ack(Self.adminRequestID, let status)):
                if case .failed(let error) = status {
                    remote?.report("\(address.text) refused the administrator's credential given with --auth: \(error.message)")
                }
                count()
                if let hello = heldHandshake {
                    heldHandshake = nil
                    remote?.connected()
                    onEvent?(.received(hello))
                }
            case .message(let message):
                if case .handshake = message { remote?.connected() }
                count()
                onEvent?(.received(message))
            case .redirect(let host):
                remote?.redirect(to: host)
                remote?.report("\(address.text) redirects to \(host)")
                socketEnded(problem: nil)
            case .shutdown(let reason):
                remote?.report("\(address.text) closed the connection: \(reason)")
                socketEnded(problem: nil)
            case .notice(let text):
                remote?.report(text)
            }
        }
        count()
    }

    /// The socket ended (or could not open): the client hears that the connection closed.
    private func socketEnded(problem: String?) {
        guard state == .open else { return }
        if let problem { remote?.report(problem) }
        end()
        commands.yield(.close)
        commands.finish()
        onEvent?(.closed)
    }

    private func end() {
        state = .ended
        engine.addMessagesInFlight(-counted)
        counted = 0
        engine.removeExternalSource()
    }

    /// Brings the engine's count of this connection's messages in flight up to date: the
    /// requests not yet answered, and the hello until it arrives.
    private func count() {
        guard state == .open else { return }
        let now = session.unanswered + (session.isOpen ? 0 : 1)
        engine.addMessagesInFlight(now - counted)
        counted = now
    }

    // MARK: The socket's task

    private func run(_ commands: AsyncStream<Command>) async {
        let problem: String?
        do {
            switch try await WebSocketDialer.dial(address) {
            case .refused:
                problem = "\(address.text) refused the WebSocket (is it a Firebase database server, and the namespace right?)"
            case .websocket(let channel):
                problem = try await serve(channel, commands: commands)
            }
        } catch {
            problem = "cannot reach \(address.text): \(Self.describe(error))"
        }
        engine.submit { [self] in socketEnded(problem: problem) }
    }

    /// Runs the open socket until either side ends it.
    /// - Returns: why it ended, when that is a problem the user should hear of.
    private func serve(_ channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, commands: AsyncStream<Command>) async throws -> String? {
        try await channel.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: String?.self) { group in
                group.addTask {
                    for await command in commands {
                        switch command {
                        case .text(let text):
                            try await outbound.write(Self.frame(.text, ByteBuffer(string: text)))
                        case .pong(let data):
                            try await outbound.write(Self.frame(.pong, data))
                        case .close:
                            var reason = ByteBuffer()
                            reason.write(webSocketErrorCode: .normalClosure)
                            try? await outbound.write(Self.frame(.connectionClose, reason))
                            return nil
                        case .drop:
                            // A silent drop, as a cable pulled: no close frame, no FIN. The
                            // socket stays open, unread frames ignored (the connection has
                            // ended) and nothing written, until the server gives up on it at
                            // its idle timeout and closes it (the reader then ends the task).
                            try await Task.sleep(for: .seconds(366 * 86_400))
                            return nil
                        }
                    }
                    return nil
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: Self.keepAliveInterval)
                        self.commands.yield(.text("0"))
                    }
                }
                group.addTask {
                    var pending: ByteBuffer?
                    for try await frame in inbound {
                        switch frame.opcode {
                        case .text:
                            if frame.fin {
                                let text = String(buffer: frame.unmaskedData)
                                self.engine.submit { [self] in received(text) }
                            } else {
                                pending = frame.unmaskedData
                            }
                        case .continuation:
                            guard var buffer = pending else { continue }
                            var data = frame.unmaskedData
                            buffer.writeBuffer(&data)
                            if frame.fin {
                                pending = nil
                                let text = String(buffer: buffer)
                                self.engine.submit { [self] in received(text) }
                            } else {
                                pending = buffer
                            }
                        case .ping:
                            self.commands.yield(.pong(frame.unmaskedData))
                        case .connectionClose:
                            return nil
                        default:
                            continue
                        }
                    }
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
        }
    }

    private static func frame(_ opcode: WebSocketOpcode, _ data: ByteBuffer) -> WebSocketFrame {
        // A client masks everything it sends (RFC 6455 §5.3).
        WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: data)
    }

    private static func describe(_ error: any Error) -> String {
        SocketErrorText.describe(error)
    }
}
