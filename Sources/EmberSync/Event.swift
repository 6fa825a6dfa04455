import EmberCore

/// One event for one listener: what happened at the query it watches.
///
/// The sync engine returns events from every operation; their owner delivers them after the
/// mutation that caused them, never re-entrantly.
public struct Event: Sendable, Hashable, CustomStringConvertible {
    /// The listener that receives the event.
    public var registration: RegistrationID
    /// The query the listener watches (its path is the location of the snapshot for `value`,
    /// and the parent of the child for child events).
    public var query: QuerySpec
    /// What happened.
    public var kind: Kind
    /// Where it comes from: the operation that raised it. A label, not part of what happened:
    /// two events are equal when they are the same change for the same listener, whatever
    /// their origins.
    public var origin: EventOrigin

    public init(registration: RegistrationID, query: QuerySpec, kind: Kind, origin: EventOrigin = .server) {
        self.registration = registration
        self.query = query
        self.kind = kind
        self.origin = origin
    }

    /// What happened, with the data the listener sees.
    public enum Kind: Sendable, Hashable {
        /// The whole (filtered) value at the query's location.
        case value(Node)
        /// A child entered the query's window; it sits after `previous` (`nil`: first).
        case childAdded(ChildKey, Node, previous: ChildKey?)
        /// A child's value changed; it sits after `previous`.
        case childChanged(ChildKey, Node, previous: ChildKey?)
        /// A child left the window; the node is its last value.
        case childRemoved(ChildKey, Node)
        /// A child changed place in the query's order; it now sits after `previous`.
        case childMoved(ChildKey, Node, previous: ChildKey?)
        /// The listen was refused or revoked; the listener is removed.
        case cancelled(DatabaseError)
    }

    /// The kind of event, or `nil` for a cancellation.
    public var type: EventType? {
        switch kind {
        case .value: .value
        case .childAdded: .childAdded
        case .childChanged: .childChanged
        case .childRemoved: .childRemoved
        case .childMoved: .childMoved
        case .cancelled: nil
        }
    }

    /// The child the event is about, for child events.
    public var childKey: ChildKey? {
        switch kind {
        case .childAdded(let key, _, _), .childChanged(let key, _, _), .childRemoved(let key, _),
            .childMoved(let key, _, _):
            key
        case .value, .cancelled:
            nil
        }
    }

    /// The key of the sibling before the child, for child_added, child_changed and child_moved.
    public var previousKey: ChildKey? {
        switch kind {
        case .childAdded(_, _, let previous), .childChanged(_, _, let previous), .childMoved(_, _, let previous):
            previous
        case .value, .childRemoved, .cancelled:
            nil
        }
    }

    /// The snapshot: the whole value for `value`, the child for child events (its old value for
    /// child_removed).
    public var snapshot: Node? {
        switch kind {
        case .value(let node), .childAdded(_, let node, _), .childChanged(_, let node, _),
            .childRemoved(_, let node), .childMoved(_, let node, _):
            node
        case .cancelled:
            nil
        }
    }

    public static func == (lhs: Event, rhs: Event) -> Bool {
        lhs.registration == rhs.registration && lhs.query == rhs.query && lhs.kind == rhs.kind
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(registration)
        hasher.combine(query)
        hasher.combine(kind)
    }

    public var description: String {
        let name = type?.rawValue ?? "cancelled"
        var text = "\(name) \(query)"
        if let childKey { text += " \(childKey)" }
        if let previousKey { text += " after \(previousKey)" }
        if let snapshot { text += " = " + snapshot.jsonString(.export) }
        return text
    }
}
