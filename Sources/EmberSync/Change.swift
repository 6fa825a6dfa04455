import EmberCore

/// A difference between two versions of a view's event data, before it becomes events:
/// `prevName` and child_moved are worked out later by the ``EventGenerator``.
enum Change: Sendable {
    case childAdded(ChildKey, Node)
    case childRemoved(ChildKey, old: Node)
    case childChanged(ChildKey, Node, old: Node)
    case childMoved(ChildKey, Node)
    case value(Node)

    /// The child the change is about (`nil` for value).
    var childKey: ChildKey? {
        switch self {
        case .childAdded(let key, _), .childRemoved(let key, _), .childChanged(let key, _, _),
            .childMoved(let key, _):
            key
        case .value:
            nil
        }
    }

    /// The node events report: the new child, the old one for a removal, the value for value.
    var node: Node {
        switch self {
        case .childAdded(_, let node), .childRemoved(_, let node), .childChanged(_, let node, _),
            .childMoved(_, let node), .value(let node):
            node
        }
    }

    /// The event type the change becomes.
    var type: EventType {
        switch self {
        case .childAdded: .childAdded
        case .childRemoved: .childRemoved
        case .childChanged: .childChanged
        case .childMoved: .childMoved
        case .value: .value
        }
    }
}
