import EmberCore

/// The views at one location: usually one, sometimes a few queries side by side.
struct SyncPoint: Sendable {
    /// The views, in the order they were created.
    private(set) var views: [View] = []

    /// Whether no view is left.
    var isEmpty: Bool { views.isEmpty }

    /// The view that loads all data here, if any: its server data is the whole location.
    var completeView: View? { views.first { $0.query.loadsAllData } }

    /// Whether some view here loads all data.
    var hasCompleteView: Bool { completeView != nil }

    /// The views of filtered queries.
    var queryViews: [View] { views.filter { !$0.query.loadsAllData } }

    /// The view answering `query`: for a query that loads all data, any view that does.
    func view(for query: QuerySpec) -> View? {
        if query.loadsAllData { return completeView }
        return views.first { $0.query.params == query.params }
    }

    /// The complete server data at `path` below this location, if some view knows it.
    func completeServerCache(at path: Path) -> Node? {
        for view in views {
            if let node = view.completeServerCache(at: path) { return node }
        }
        return nil
    }

    /// Applies an operation to every view, or only to the tagged query's view.
    ///
    /// Each view gets the complete server data known above this location
    /// (`serverCacheAbove`), else the complete view's data here as it was before the
    /// operation. The complete view itself, and a tagged update, get only what is known above:
    /// for the complete view its own data is the same, and holding a second reference to it
    /// would make the view copy its data instead of changing it in place.
    mutating func apply(_ operation: Operation, writes: WriteTreeRef, serverCacheAbove: Node?) -> [Event] {
        if case .taggedQuery(let params) = operation.source {
            guard let position = views.firstIndex(where: { $0.query.params == params }) else { return [] }
            return views[position].apply(operation, writes: writes, completeServerCache: serverCacheAbove)
        }
        // Taken before any view changes: filtered views see the data as it was.
        var here: Node? = nil
        if serverCacheAbove == nil && hasFilteredView {
            here = completeServerCache(at: .root)
        }
        var events: [Event] = []
        for position in views.indices {
            let completeServerCache = views[position].query.loadsAllData ? serverCacheAbove : serverCacheAbove ?? here
            let viewEvents = views[position].apply(operation, writes: writes, completeServerCache: completeServerCache)
            // The first view's events are taken as they are (appending them to an empty list
            // copied each event into a new buffer: most points have one view).
            if events.isEmpty { events = viewEvents } else { events += viewEvents }
        }
        return events
    }

    /// Whether a view of a filtered query is here. Each view's query is read in place (a
    /// closure over the views took a copy of each view, for every operation that reaches the
    /// point).
    /// - Complexity: O(v) for v views.
    private var hasFilteredView: Bool {
        for position in views.indices where !views[position].query.loadsAllData { return true }
        return false
    }

    /// Adds a listener to the view of `query`, creating the view from the data known, and
    /// returns its initial events.
    mutating func addRegistration(
        _ registration: EventRegistration, for query: QuerySpec, writes: WriteTreeRef, serverCache: CacheNode
    ) -> [Event] {
        let position: Int
        if let existing = views.firstIndex(where: { $0.query.params == query.params }) {
            position = existing
        } else {
            let eventCache: CacheNode
            if let complete = writes.completeEventCache(server: serverCache.completeNode) {
                eventCache = CacheNode(complete, .complete, .whole)
            } else if !serverCache.node.isLeaf {
                eventCache = CacheNode(writes.completeEventChildren(server: serverCache.node), .partial, .whole)
            } else {
                eventCache = .unknown
            }
            let initial = ViewCache(eventCache: eventCache, serverCache: serverCache)
            views.append(View(query: query, initialCache: initial))
            position = views.count - 1
        }
        views[position].add(registration)
        return views[position].initialEvents(for: registration)
    }

    /// Removes a listener (or all, when `id` is `nil`) from the view of `query`, or from every
    /// view when `query` is the default query.
    /// - Returns: the queries whose views went away (filtered ones, plus the location's default
    ///   query when its last complete view went), and cancellation events.
    mutating func removeRegistration(
        _ id: RegistrationID?, for query: QuerySpec, cancelError: DatabaseError?
    ) -> (removed: [QuerySpec], events: [Event]) {
        var removed: [QuerySpec] = []
        var events: [Event] = []
        let hadCompleteView = hasCompleteView
        var position = 0
        while position < views.count {
            if query.isDefault || views[position].query.params == query.params {
                events += views[position].removeRegistration(id, cancelError: cancelError)
                if views[position].isEmpty {
                    let view = views.remove(at: position)
                    if !view.query.loadsAllData { removed.append(view.query) }
                    continue
                }
            }
            position += 1
        }
        if hadCompleteView && !hasCompleteView {
            removed.append(.default(at: query.path))
        }
        return (removed, events)
    }
}
