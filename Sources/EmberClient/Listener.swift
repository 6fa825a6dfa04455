import EmberCore
import EmberSync

/// A callback registered on a query.
struct Listener {
    let query: QuerySpec
    let types: Set<EventType>
    /// Removed after its first event (`once`).
    let once: Bool
    let callback: (ListenerEvent) -> Void
}
