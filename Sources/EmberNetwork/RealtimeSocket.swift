import EmberCore
import EmberNetworkShared
import EmberServer
import EmberWire
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// Serves one WebSocket speaking the realtime protocol v5.
///
/// The hot path has no task in it: a ``RealtimeFrameHandler`` in the channel's pipeline decodes
/// the client's messages on the event loop and submits them to the database's engine thread;
/// the engine queues its answers on ``OutboundFrames`` and its ``RealtimeOutbox`` writes them
/// to the channel at the end of the tick. So a write and its acknowledgement cost two thread
/// hand-offs (event loop → engine → event loop) at most, and none for a database in memory
/// whose engine is idle (the event loop runs the engine itself: ``EngineThread/run(_:)``).
///
/// The task that runs here keeps hummingbird-websocket's side going (pings, the closing
/// handshake, frames sent before the handler was added), closes the WebSocket when the stream
/// ends, and enforces the idle timeout. The socket closes when the client leaves, the server
/// closes the connection, the client stops reading (its unsent data passes the limit: the
/// connection is cut at once), or it stays silent past the idle timeout.
enum RealtimeSocket {
    static func serve(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel, frames: OutboundFrames,
        database: ServedDatabase, host: String, session: String, limits: NetworkLimits, verifier: TokenVerifier?,
        admin: AdminCredential = .owner, createNamespace: (@Sendable () -> Bool)? = nil, tracing: Bool = false, logger: Logger
    ) async throws {
        let connection = RealtimeConnection(
            outbound: frames, outbox: database.outbox, host: host, session: session, admin: admin, createNamespace: createNamespace)
        let activity = Activity()
        activity.heard()
        // The connection is accepted (its hello sent) and the handler goes in during one turn
        // of the event loop, which reads nothing meanwhile: every message the client sends,
        // even before the hello reaches it, finds both (a message read between them was
        // dropped, unanswered, by a server that did not know the connection yet).
        let maxMessageSize = limits.maxMessageSize
        // Messages read in one turn of the event loop, from every socket, go to the engine
        // together.
        let batch = database.inboundBatch(for: channel.eventLoop)
        let handler: NIOLoopBound<RealtimeFrameHandler>? = try? await channel.eventLoop.submit {
            database.submit { access in
                let server = access.server
                if tracing {
                    connection.trace = { direction, text in
                        logger.info("\(ProtocolSummary(client: "connection \(session)", direction: direction, text: text, width: 120).text)")
                    }
                }
                let id = server.accept(connection)
                connection.refusesEveryWrite = { [weak server] path in
                    server.map { $0.refusesEveryWrite(atOrBelow: path, as: $0.auth(of: id)) } ?? true
                }
            }
            let handler = RealtimeFrameHandler(
                maxMessageSize: maxMessageSize, maxHeldBytes: limits.maxUnsentBytes, activity: activity, verifier: verifier,
                loop: channel.eventLoop,
                events: .init(
                    message: { frame in batch.add { connection.receive(frame) } },
                    tooLarge: { batch.add { connection.messageTooLarge(limit: maxMessageSize) } },
                    refusesWrites: { paths, answer in batch.add { answer(paths.first(where: connection.refusesEveryWrite)) } },
                    writabilityChanged: { frames.noteBuffered() }))
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
            try pipeline.addHandler(handler, position: .after(decoder))
            return NIOLoopBound(handler, eventLoop: channel.eventLoop)
        }.get()
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // Closes the WebSocket when the stream ends (after what the engine handed the
                // event loop: the close is queued behind it).
                for await ending in frames.endings {
                    switch ending {
                    case .overflowed:
                        logger.warning("closing a connection that stopped reading (more than \(limits.maxUnsentBytes) bytes unsent)")
                        // It does not read: a close frame would wait behind the data.
                        try? await channel.close()
                    case .closed, .open:
                        try? await outbound.close(.normalClosure, reason: nil)
                        // A client that does not answer the close is cut off.
                        try await Task.sleep(for: .seconds(5))
                        try? await channel.close()
                    }
                }
            }
            group.addTask {
                // The idle timeout: Firebase's clients send "0" every 45 s when there is no traffic.
                while !Task.isCancelled {
                    try await Task.sleep(for: .seconds(max(1, limits.idleTimeout / 4)))
                    let silent = activity.silence
                    if silent >= Int64(limits.idleTimeout) {
                        logger.info("closing a connection silent for \(silent) s")
                        frames.finish()
                        return
                    }
                }
            }
            do {
                // Data frames stop at the handler; any that come here arrived before it was
                // added, and go to it on the event loop, in order.
                for try await message in inbound.messages(maxSize: limits.maxMessageSize) {
                    // (Without the handler the channel had closed already.)
                    guard case .text(let text) = message, let handler else { continue }
                    channel.eventLoop.execute { handler.value.take(message: text) }
                }
            } catch {
                logger.debug("a connection's reader ended: \(error)")
            }
            // After the messages the event loop read before the end (its batch is handed over
            // first): a write sent just before the socket closed is applied before the
            // connection's onDisconnect operations run.
            channel.eventLoop.execute { batch.add { connection.socketEnded() } }
            frames.finish()
            group.cancelAll()
        }
    }
}
