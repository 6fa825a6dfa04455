import EmberCore
import EmberServer
import EmberWire
import HummingbirdWebSocket
import Logging
import NIOWebSocket

/// Serves one WebSocket speaking the realtime protocol v5: a reader that reassembles and decodes
/// the client's frames and submits them to the database's engine thread, and a writer that
/// sends what the server queued (``OutboundFrames``), split into frames as the protocol wants.
/// The socket closes when the client leaves, the server closes the connection, the client
/// stops reading (its unsent data passes the limit), or it stays silent past the idle timeout.
enum RealtimeSocket {
    static func serve(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, frames: OutboundFrames, database: ServedDatabase, host: String,
        session: String, limits: NetworkLimits, logger: Logger
    ) async throws {
        let connection = RealtimeConnection(outbound: frames, host: host, session: session)
        database.submit { access in access.server.accept(connection) }
        let activity = Activity()
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await text in frames.stream {
                    if frames.ending == .overflowed { break }
                    for frame in RealtimeCodec.frames(text) { try await outbound.write(.text(frame)) }
                    frames.sent(text)
                }
                switch frames.ending {
                case .overflowed:
                    logger.warning("closing a connection that stopped reading (more than \(limits.maxUnsentBytes) bytes unsent)")
                    try? await outbound.close(.policyViolation, reason: "too much unsent data")
                default:
                    try? await outbound.close(.normalClosure, reason: nil)
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
            var assembler = FrameAssembler(maxMessageSize: limits.maxMessageSize)
            do {
                for try await message in inbound.messages(maxSize: limits.maxMessageSize) {
                    activity.heard()
                    guard case .text(let text) = message else { continue }
                    switch assembler.take(text) {
                    case .incomplete:
                        continue
                    case .tooLarge:
                        frames.push(RealtimeCodec.error("The specified payload is too large (more than \(limits.maxMessageSize) bytes)."))
                        frames.finish()
                    case .message(let text):
                        let frame = RealtimeCodec.decodeClientFrame(text)
                        database.submit { _ in connection.receive(frame) }
                    }
                    if frames.ending != .open { break }
                }
            } catch {
                logger.debug("a connection's reader ended: \(error)")
            }
            database.submit { _ in connection.socketEnded() }
            frames.finish()
            group.cancelAll()
        }
    }
}
