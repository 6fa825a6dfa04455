/// What a piece of scheduled work is, for the engine's accounting.
public enum WorkKind: Sendable, Hashable {
    /// A message (or a connection's end) travelling: counted in ``Engine/messagesInFlight``.
    case message
    /// A timer: reconnection back-off, a disconnect timeout, a deadline.
    case timer
}
