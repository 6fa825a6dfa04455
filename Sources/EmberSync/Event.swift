import EmberCore

/// One event raised to a listener after a change: what happened, where, and for child events,
/// which child and after which sibling it now sits.
///
/// Events are values produced by the sync engine and delivered by their owner after the mutation
/// that caused them, never re-entrantly. The data itself (the snapshot of the new value) joins
/// these cases once EmberCore's `Node` exists.
public enum Event: Sendable, Hashable {
    /// The value at `path` is now known or has changed.
    case value(path: Path)
    /// `key` appeared under `path`, after `previousKey` in query order (`nil`: first).
    case childAdded(path: Path, key: ChildKey, previousKey: ChildKey?)
    /// The value of `key` under `path` changed; it sits after `previousKey`.
    case childChanged(path: Path, key: ChildKey, previousKey: ChildKey?)
    /// `key` left `path` (or the query's window).
    case childRemoved(path: Path, key: ChildKey)
    /// `key` moved in query order; it now sits after `previousKey`.
    case childMoved(path: Path, key: ChildKey, previousKey: ChildKey?)

    /// The kind of event.
    public var type: EventType {
        switch self {
        case .value: .value
        case .childAdded: .childAdded
        case .childChanged: .childChanged
        case .childRemoved: .childRemoved
        case .childMoved: .childMoved
        }
    }

    /// The location listened to (the parent of the child for child events).
    public var path: Path {
        switch self {
        case .value(let path), .childAdded(let path, _, _), .childChanged(let path, _, _),
            .childRemoved(let path, _), .childMoved(let path, _, _):
            path
        }
    }

    /// The child the event is about, for child events.
    public var childKey: ChildKey? {
        switch self {
        case .value: nil
        case .childAdded(_, let key, _), .childChanged(_, let key, _), .childRemoved(_, let key),
            .childMoved(_, let key, _):
            key
        }
    }
}
