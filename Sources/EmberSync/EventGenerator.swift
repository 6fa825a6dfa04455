import EmberCore

/// Turns a view's changes into events for its listeners, in the fixed order: removed, added,
/// moved, changed, value. Each kind is sorted in the query's order; child_moved is made from a
/// child_changed whose indexed value changed; `previous` is the sibling before the child in the
/// new event data.
struct EventGenerator: Sendable {
    /// The query the events are about.
    let query: QuerySpec

    /// The events for `changes`, given the view's new event data.
    /// - Complexity: O(c log c + c·r·log n) for c changes, r registrations and n children (key
    ///   and priority order).
    func events(for changes: [Change], eventCache: Node, registrations: [EventRegistration]) -> [Event] {
        if changes.isEmpty { return [] }
        let wanted = EventRegistration.wanted(by: registrations)
        if wanted == 0 { return [] }
        let index = query.params.index
        var events: [Event] = []
        for type in Self.order where wanted & type.bit != 0 {
            // Kinds no listener wants are not worked out: a value listener on a large location
            // must not pay for sorting its children's changes.
            func emit(_ change: Change) {
                let kind = materialize(change, eventCache: eventCache, index: index)
                for registration in registrations where registration.responds(to: type) {
                    events.append(Event(registration: registration.id, query: query, kind: kind))
                }
            }
            if type == .childMoved {
                var moved: [Change] = []
                for case .childChanged(let key, let node, let old) in changes where Self.indexedValueChanged(index, old, node) {
                    moved.append(.childMoved(key, node))
                }
                if moved.count > 1 { moved.sort { index.compare(NamedNode($0.childKey!, $0.node), NamedNode($1.childKey!, $1.node)) < 0 } }
                for change in moved { emit(change) }
                continue
            }
            // One change of the type (a write's usual case), or a value change: emitted from
            // the list in place. Several are sorted into query order first, in a list of their
            // own (a filtered copy for every type copied each change, through its value
            // witnesses, once per type wanted).
            var matching = 0
            for position in changes.indices where changes[position].type == type { matching += 1 }
            if matching == 0 { continue }
            if matching == 1 || type == .value {
                for position in changes.indices where changes[position].type == type { emit(changes[position]) }
            } else {
                var ofType = changes.filter { $0.type == type }
                ofType.sort { index.compare(NamedNode($0.childKey!, $0.node), NamedNode($1.childKey!, $1.node)) < 0 }
                for change in ofType { emit(change) }
            }
        }
        return events
    }

    /// The order events are raised in.
    private static let order: [EventType] = [.childRemoved, .childAdded, .childMoved, .childChanged, .value]

    private func materialize(_ change: Change, eventCache: Node, index: Index) -> Event.Kind {
        func previous(_ key: ChildKey, _ node: Node) -> ChildKey? {
            eventCache.child(before: NamedNode(key, node), in: index)?.key
        }
        switch change {
        case .value(let node): return .value(node)
        case .childRemoved(let key, let old): return .childRemoved(key, old)
        case .childAdded(let key, let node): return .childAdded(key, node, previous: previous(key, node))
        case .childChanged(let key, let node, _): return .childChanged(key, node, previous: previous(key, node))
        case .childMoved(let key, let node): return .childMoved(key, node, previous: previous(key, node))
        }
    }

    /// Whether a child's place in `index` order may have changed.
    static func indexedValueChanged(_ index: Index, _ old: Node, _ new: Node) -> Bool {
        switch index {
        case .key: false
        case .priority: old.priority != new.priority
        case .value: old != new
        case .child(let path): old.child(at: path) != new.child(at: path)
        }
    }
}
