import EmberCore

/// One query at one location: its listeners, its caches, and how operations change them.
struct View: Sendable {
    /// The query.
    let query: QuerySpec
    /// The listeners, in the order they were added.
    private(set) var registrations: [EventRegistration] = []
    /// The server data and the event data.
    private(set) var cache: ViewCache
    private let processor: ViewProcessor
    private let generator: EventGenerator

    /// A view whose caches start from `initialCache`, shaped by the query (the server data is
    /// only ordered: a filtered query's own server data arrives with its tagged listen).
    init(query: QuerySpec, initialCache: ViewCache) {
        self.query = query
        let filter = NodeFilter(query.params)
        let indexFilter = filter.indexedFilter
        processor = ViewProcessor(filter: filter)
        generator = EventGenerator(query: query)
        var noChanges: ChildChangeAccumulator? = nil
        let serverNode = indexFilter.updateFullNode(.empty, initialCache.serverCache.node, &noChanges)
        let eventNode = filter.updateFullNode(.empty, initialCache.eventCache.node, &noChanges)
        cache = ViewCache(
            eventCache: CacheNode(eventNode, initialCache.eventCache.completeness, filter.filtersNodes ? .filtered : .whole),
            serverCache: CacheNode(serverNode, initialCache.serverCache.completeness, initialCache.serverCache.scope))
    }

    /// Whether no listener is left.
    var isEmpty: Bool { registrations.isEmpty }

    /// The complete event data, if known.
    var completeEventNode: Node? { cache.completeEventNode }

    /// The server data (complete or not).
    var serverNode: Node { cache.serverCache.node }

    /// The complete server data at `path` below the view, if known. A filtered view knows only
    /// the children in its window.
    func completeServerCache(at path: Path) -> Node? {
        guard let node = cache.completeServerNode else { return nil }
        if query.loadsAllData { return node.child(at: path) }
        if let front = path.front, !node.child(front).isEmpty { return node.child(at: path) }
        return nil
    }

    mutating func add(_ registration: EventRegistration) {
        registrations.append(registration)
    }

    /// Removes the listener `id` (its first registration here), or every listener when `nil`;
    /// with `cancelError`, every listener gets a cancellation event.
    mutating func removeRegistration(_ id: RegistrationID?, cancelError: DatabaseError?) -> [Event] {
        var events: [Event] = []
        if let cancelError {
            events = registrations.map { Event(registration: $0.id, query: query, kind: .cancelled(cancelError)) }
        }
        if let id {
            if let position = registrations.firstIndex(where: { $0.id == id }) {
                registrations.remove(at: position)
            }
        } else {
            registrations.removeAll()
        }
        return events
    }

    /// Applies an operation and returns the events for every listener.
    mutating func apply(_ operation: Operation, writes: WriteTreeRef, completeServerCache: Node?) -> [Event] {
        let wasComplete = cache.serverCache.isComplete
        let changes = processor.apply(operation, to: &cache, writes: writes, completeCache: completeServerCache)
        assert(cache.serverCache.isComplete || !wasComplete, "complete server data never becomes incomplete")
        return generator.events(for: changes, eventCache: cache.eventCache.node, registrations: registrations)
    }

    /// The events a new listener gets at once: child_added for every child known, then value
    /// when the data is complete.
    func initialEvents(for registration: EventRegistration) -> [Event] {
        let eventNode = cache.eventCache.node
        var changes: [Change] = []
        if !eventNode.isLeaf {
            changes = eventNode.children.map { .childAdded($0.key, $0.node) }
        }
        if cache.eventCache.isComplete { changes.append(.value(eventNode)) }
        return generator.events(for: changes, eventCache: eventNode, registrations: [registration])
    }
}
