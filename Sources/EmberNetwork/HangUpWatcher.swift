import NIOCore

/// Tells when the peer of an HTTP connection has gone (its input closed, or the channel went
/// inactive), for an event stream that otherwise learns of it only when a write fails. Sits at
/// the front of the pipeline and passes everything on unchanged.
final class HangUpWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private var onHangUp: (() -> Void)?

    init(onHangUp: @escaping () -> Void) {
        self.onHangUp = onHangUp
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Ask for a read: an end of input that is waiting is noticed now.
        if context.channel.isActive { context.read() } else { hungUp() }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { hungUp() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        hungUp()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    private func hungUp() {
        let callback = onHangUp
        onHangUp = nil
        callback?()
    }
}
