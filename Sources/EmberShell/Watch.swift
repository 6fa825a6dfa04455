import EmberClient
import EmberCore
import EmberQL

/// A `watch` the session holds: which client listens where, to what, and the handle that
/// stops it.
struct Watch {
    /// The number `watch` printed.
    let id: Int
    /// The client that listens.
    let client: ClientName
    /// The location.
    let path: Path
    /// The query modifiers as written.
    let query: String
    /// The events listened to.
    let events: [EventType]
    /// The listener.
    let handle: ListenerHandle
}
