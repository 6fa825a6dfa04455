import EmberCore
import EmberSync

/// What a listener receives.
public enum ListenerEvent {
    /// An event: its type, the snapshot (the whole value, or the child), and for child events
    /// the key of the previous sibling in the query's order.
    case data(EventType, DataSnapshot, previousKey: String?)
    /// The listen was refused or revoked: the listener is removed and hears nothing more.
    case cancelled(DatabaseError)
}
