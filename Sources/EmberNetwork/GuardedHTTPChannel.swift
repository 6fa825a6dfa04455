import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1.1 channel (with its WebSocket upgrade) behind a ``ConnectionGate``: the
/// gate goes first in every connection's pipeline, before the HTTP decoder, and
/// ``RequestBoundaries`` right after the decoder.
struct GuardedHTTPChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    let connections: ConnectionCounter
    let limits: NetworkLimits

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let gate = ConnectionGate(
            connections: connections, maxConnections: limits.maxConnections,
            headTimeout: .seconds(Int64(min(limits.idleTimeout, limits.requestHeadTimeout))))
        do {
            try channel.pipeline.syncOperations.addHandler(gate, position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger).assumeIsolated().flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            let gateContext = try pipeline.context(handler: gate)
            try pipeline.addHandler(
                RequestBoundaries(gate: gate, gateContext: gateContext), name: RequestBoundaries.name, position: .after(decoder))
            return value
        }.nonisolated()
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
