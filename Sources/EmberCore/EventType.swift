/// The kinds of event a listener can ask for, named as in the Firebase SDKs and the shell
/// (`watch /scores child_added`).
public enum EventType: String, CaseIterable, Sendable, Hashable {
    /// The whole value at the location, once at first and again after every change.
    case value
    /// A child appeared in the query's window (with the key of the child before it).
    case childAdded = "child_added"
    /// A child's value changed.
    case childChanged = "child_changed"
    /// A child left the query's window.
    case childRemoved = "child_removed"
    /// A child changed place in the query's order (with the key of its new predecessor).
    case childMoved = "child_moved"

    /// The four child events: what `watch` listens to when no event is named.
    public static let childEvents: [EventType] = [.childAdded, .childChanged, .childRemoved, .childMoved]

    /// Whether this is one of the child events.
    public var isChildEvent: Bool { self != .value }
}

extension EventType {
    /// This type's bit in a mask of types (a sync registration's, a client's listener's):
    /// asked for on every change, so not hashed (a `Set<EventType>` hashes the raw string).
    public var bit: UInt8 {
        switch self {
        case .value: 1
        case .childAdded: 2
        case .childChanged: 4
        case .childRemoved: 8
        case .childMoved: 16
        }
    }

    /// The bits of `types`, one a type (``bit``).
    public static func bits(of types: Set<EventType>) -> UInt8 {
        types.reduce(0) { $0 | $1.bit }
    }
}
