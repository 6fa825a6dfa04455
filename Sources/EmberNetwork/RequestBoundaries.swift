import NIOCore
import NIOHTTP1

/// Sits after SwiftNIO's HTTP decoder and tells the connection's ``ConnectionGate`` where each
/// request ends (so that it watches the next head) and what the decoder refused (so that it
/// answers 400 and closes instead of leaving the connection open and silent). Passes every
/// part on unchanged. A WebSocket upgrade removes it (``name``): frames are not its kind.
final class RequestBoundaries: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// Its name in the pipeline.
    static let name = "ember.requestBoundaries"

    private let gate: ConnectionGate
    /// The gate's context, which writes before the decoder and the encoder.
    private let gateContext: ChannelHandlerContext

    init(gate: ConnectionGate, gateContext: ChannelHandlerContext) {
        self.gate = gate
        self.gateContext = gateContext
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { gate.requestEnded() }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? HTTPParserError {
            gate.malformed(context: gateContext, error: error)
            return
        }
        context.fireErrorCaught(error)
    }
}
