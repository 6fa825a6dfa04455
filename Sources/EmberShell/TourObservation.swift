import EmberClient
import EmberCore
import EmberSync

/// What the tour saw of the session since its lesson began: the data on the server, the
/// watches, the events printed, the errors, the connections. A lesson's check reads it: the tour
/// checks what happened, not the text typed.
struct TourObservation {
    /// An event a watch printed.
    struct Seen {
        let watch: Int
        let type: EventType
        let path: Path
        let origin: EventOrigin
    }

    /// The server's data at a path (now).
    let serverData: (Path) -> Node
    /// The server's data at the lesson's start, at the paths the lessons ask about.
    let baseline: [Path: Node]
    /// The session's watches now.
    let watches: [Watch]
    /// The events printed since the lesson began.
    let events: [Seen]
    /// The error codes of the commands that failed since the lesson began.
    let errors: [String]
    /// Whether `trace` printed anything since the lesson began.
    let traced: Bool
    /// Whether a client was offline after a command since the lesson began, with a write
    /// queued.
    let queuedOffline: Bool
    /// Whether every client is connected with nothing pending now.
    let allSettled: Bool
    /// Whether the server's rules are the open rules.
    let rulesOpen: Bool
    /// The children of /presence seen after a command since the lesson began.
    let presenceSeen: Set<ChildKey>
    /// The data at /users when a write was first refused since the lesson began.
    let usersAtDenial: Node?
}
