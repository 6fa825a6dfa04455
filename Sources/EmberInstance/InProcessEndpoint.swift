import EmberCore
import EmberEngine
import EmberWire

/// One end of an in-process connection: a ``Transport`` whose messages travel through an
/// ``InProcessNetwork``.
///
/// Confined to the engine, like everything the network delivers to.
public final class InProcessEndpoint<Outgoing: Sendable, Incoming: Sendable>: Transport {
    public var onEvent: ((TransportEvent<Incoming>) -> Void)?
    /// Whether events still reach this end.
    public internal(set) var isOpen = true
    var sendHandler: ((Outgoing) -> Void)?
    var closeHandler: (() -> Void)?

    init() {}

    public func send(_ message: Outgoing) {
        sendHandler?(message)
    }

    public func close() {
        closeHandler?()
    }

    /// Hands an event to this end's owner; nothing arrives once the end is closed.
    func receive(_ event: TransportEvent<Incoming>) {
        guard isOpen else { return }
        if case .closed = event { isOpen = false }
        onEvent?(event)
    }
}
