/// What one end of a ``Transport`` learns from the other.
public enum TransportEvent<Message: Sendable>: Sendable {
    /// A message arrived.
    case received(Message)
    /// The connection ended (closed by the other end, or found dead after a timeout); nothing
    /// more will arrive.
    case closed
}
