import EmberCore

/// The client's sync engine: every listener, every pending write, every view's caches, and the
/// events each change raises.
///
/// A tree of ``SyncPoint``s holds the views at each listened location; a ``WriteTree`` holds
/// the user's pending writes. Every operation returns the events to raise and raises none
/// itself. Which server listens are needed is reported to the ``ListenProvider``, so the
/// engine never talks to a connection.
///
/// Filtered queries (with a range or a limit) get a ``QueryTag`` when their view is created;
/// the server's updates for them arrive tagged and change only their view.
public struct SyncTree<Provider: ListenProvider> {
    /// Receives the listens to start and stop.
    public var listenProvider: Provider
    /// The pending user writes.
    public private(set) var pendingWrites = WriteTree()
    private var syncPoints = ImmutableTree<SyncPoint>()
    /// Counts the changes to what this tree knows and shows: every write, acknowledgement,
    /// server update and listener change adds at least one. Two reads at the same generation
    /// give the same answer, so a caller can keep an answer while the generation stays.
    public private(set) var generation: UInt64 = 0
    private var queryToTag: [QuerySpec: QueryTag] = [:]
    private var tagToQuery: [QueryTag: QuerySpec] = [:]
    private var nextTag = 1

    public init(listenProvider: Provider) {
        self.listenProvider = listenProvider
    }

    // MARK: User writes

    /// Applies a set (or transaction) made locally, before the server confirms it.
    /// - Complexity: O(d log n) per affected view for a write below the view's location.
    public mutating func applyUserOverwrite(
        _ node: Node, at path: Path, writeID: WriteID, visibility: WriteVisibility = .visible
    ) -> [Event] {
        generation &+= 1
        // With no view, nothing reads the layer of pending writes: the write waits out of it
        // (``WriteTree/applyDeferred()``), and most often leaves, answered, without entering.
        pendingWrites.addOverwrite(node, at: path, id: writeID, visibility: visibility, deferred: syncPoints.isEmpty)
        guard visibility == .visible else { return [] }
        return applyToSyncPoints(.overwrite(.user, path, node))
    }

    /// Applies an update made locally: each relative path of `changes` below `path` is set.
    public mutating func applyUserMerge(_ changes: [(Path, Node)], at path: Path, writeID: WriteID) -> [Event] {
        pendingWrites.addMerge(changes, at: path, id: writeID)
        return applyToSyncPoints(.merge(.user, path, Self.tree(of: changes)))
    }

    /// Puts the writes made while no view was there into the layer of pending writes, before
    /// something reads ``pendingWrites`` (``WriteTree/applyDeferred()``).
    public mutating func applyDeferredWrites() { pendingWrites.applyDeferred() }

    /// The pending write `writeID`, read in place (``pendingWrites`` returns a copy of the
    /// whole write tree).
    /// - Complexity: O(log w) for w pending writes.
    public func pendingWrite(_ writeID: WriteID) -> WriteRecord? { pendingWrites.write(writeID) }

    /// Drops a pending write that the server confirmed or refused, and returns the events of
    /// the views it changes (none when the server's data already matches).
    public mutating func ackUserWrite(_ writeID: WriteID, outcome: WriteOutcome) -> [Event] {
        guard let write = pendingWrites.write(writeID) else { return [] }
        generation &+= 1
        guard pendingWrites.removeWrite(writeID) else { return [] }
        var affected = ImmutableTree<Bool>()
        switch write.change {
        case .overwrite:
            affected = ImmutableTree(true)
        case .merge(let changes):
            for (relative, _) in changes { affected = affected.setting(true, at: relative) }
        }
        return applyToSyncPoints(.ackUserWrite(write.path, affected: affected, outcome))
    }

    // MARK: Server data

    /// Applies data the server sent for `path`.
    /// - Complexity: O(d log n) per affected view, for a change below the view's location.
    public mutating func applyServerOverwrite(_ node: Node, at path: Path) -> [Event] {
        applyToSyncPoints(.overwrite(.server, path, node))
    }

    /// Applies a merge the server sent: each relative path of `changes` below `path` is set.
    public mutating func applyServerMerge(_ changes: [(Path, Node)], at path: Path) -> [Event] {
        applyToSyncPoints(.merge(.server, path, Self.tree(of: changes)))
    }

    /// Records that the server has sent all data for the default listen at `path`.
    public mutating func applyListenComplete(at path: Path) -> [Event] {
        applyToSyncPoints(.listenComplete(.server, path))
    }

    /// Applies data the server sent for the filtered query tagged `tag` (nothing when the
    /// query is gone, or when `path` is not at or below the query's location).
    public mutating func applyTaggedQueryOverwrite(_ node: Node, at path: Path, tag: QueryTag) -> [Event] {
        guard let query = tagToQuery[tag], let relative = query.path.relative(to: path) else { return [] }
        return applyTagged(.overwrite(.taggedQuery(query.params), relative, node), to: query)
    }

    /// Applies a merge the server sent for the filtered query tagged `tag`.
    public mutating func applyTaggedQueryMerge(_ changes: [(Path, Node)], at path: Path, tag: QueryTag) -> [Event] {
        guard let query = tagToQuery[tag], let relative = query.path.relative(to: path) else { return [] }
        return applyTagged(.merge(.taggedQuery(query.params), relative, Self.tree(of: changes)), to: query)
    }

    /// Records that the server has sent all data for the filtered query tagged `tag`.
    public mutating func applyTaggedListenComplete(at path: Path, tag: QueryTag) -> [Event] {
        guard let query = tagToQuery[tag], let relative = query.path.relative(to: path) else { return [] }
        return applyTagged(.listenComplete(.taggedQuery(query.params), relative), to: query)
    }

    // MARK: Listeners

    /// Adds a listener to `query` and returns its initial events: child_added for each child
    /// already known, then value if the data is complete. Starts a server listen unless a
    /// listen above or at the location already covers it.
    ///
    /// When no listen in memory knows the location's data whole, `persisted` is asked what a
    /// store kept of it (after a restart): complete data is used as it is; partial data fills
    /// in the children no listen below knows.
    public mutating func addEventRegistration(
        _ registration: EventRegistration, for query: QuerySpec, persisted: (() -> CacheNode?)? = nil
    ) -> [Event] {
        generation &+= 1
        // A view is made: from now on the layer of pending writes is read.
        pendingWrites.applyDeferred()
        let path = query.path
        var serverCache: Node?
        var foundAncestorDefaultView = false
        syncPoints.forEach(on: path) { syncPointPath, syncPoint in
            if serverCache == nil { serverCache = syncPoint.completeServerCache(at: syncPointPath.relative(to: path)!) }
            foundAncestorDefaultView = foundAncestorDefaultView || syncPoint.hasCompleteView
        }
        var syncPoint = syncPoints.value(at: path) ?? SyncPoint()
        foundAncestorDefaultView = foundAncestorDefaultView || syncPoint.hasCompleteView
        if serverCache == nil { serverCache = syncPoint.completeServerCache(at: .root) }
        // What a store kept matters only for a new view without complete data in memory.
        let stored = serverCache == nil && syncPoint.view(for: query) == nil ? persisted?() : nil
        let initialServerCache: CacheNode
        if let serverCache {
            initialServerCache = CacheNode(serverCache, .complete, .whole)
        } else if let stored, stored.isComplete {
            initialServerCache = stored
        } else {
            // Assemble what complete children the listens below know, then what a store kept.
            var server = Node.empty
            for (key, child) in syncPoints.subtree(at: path).children {
                if let complete = child.value?.completeServerCache(at: .root) {
                    server.setChild(key, complete)
                }
            }
            if let stored {
                for child in stored.node.children where !server.hasChild(child.key) {
                    server.setChild(child.key, child.node)
                }
            }
            initialServerCache = CacheNode(server, .partial, .whole)
        }
        let viewExists = syncPoint.view(for: query) != nil
        if !viewExists && !query.loadsAllData {
            let tag = QueryTag(nextTag)
            nextTag += 1
            queryToTag[query] = tag
            tagToQuery[tag] = query
        }
        var events = syncPoint.addRegistration(
            registration, for: query, writes: WriteTreeRef(path: path, tree: pendingWrites), serverCache: initialServerCache)
        if !events.isEmpty {
            // The initial events show what the client knows: a store's data, pending writes
            // over the server's, or the server's alone.
            let fromStore = serverCache == nil && stored != nil
            events = Self.labelled(events, fromStore ? .cache : pendingWrites.hasVisibleWrite(overlapping: path) ? .local : .server)
        }
        syncPoints.modify(at: path) { $0.value = syncPoint }
        if !viewExists && !foundAncestorDefaultView {
            startListen(for: query)
        }
        return events
    }

    /// Removes the listener `registration` from `query` (from every query at the location when
    /// `query` is the default query), or every listener there when it is `nil`. With
    /// `cancelError` (a refused or revoked listen) the listeners get a cancellation event.
    /// Stops server listens no longer needed, and starts those of listeners below that a
    /// removed listen covered.
    public mutating func removeEventRegistration(
        _ registration: RegistrationID?, for query: QuerySpec, cancelError: DatabaseError? = nil
    ) -> [Event] {
        generation &+= 1
        let path = query.path
        guard var syncPoint = syncPoints.value(at: path), query.isDefault || syncPoint.view(for: query) != nil else {
            return []
        }
        let (removed, events) = syncPoint.removeRegistration(registration, for: query, cancelError: cancelError)
        let kept = syncPoint.isEmpty ? nil : syncPoint
        syncPoints.modify(at: path) { $0.value = kept }
        let removingDefault = removed.contains { $0.loadsAllData }
        let covered = syncPoints.first(on: path) { _, syncPoint in syncPoint.hasCompleteView ? true : nil } ?? false
        if removingDefault && !covered {
            // Listeners below were covered by the removed listen: they need their own now.
            let subtree = syncPoints.subtree(at: path)
            if !subtree.isEmpty {
                for view in Self.distinctViews(in: subtree) {
                    listenProvider.startListening(view.query.forListening, tag: queryToTag[view.query])
                }
            }
        }
        if !covered && !removed.isEmpty && cancelError == nil {
            if removingDefault {
                listenProvider.stopListening(.default(at: path), tag: nil)
            } else {
                for removedQuery in removed {
                    listenProvider.stopListening(removedQuery.forListening, tag: queryToTag[removedQuery])
                }
            }
        }
        for removedQuery in removed where !removedQuery.loadsAllData {
            if let tag = queryToTag.removeValue(forKey: removedQuery) { tagToQuery[tag] = nil }
        }
        return events
    }

    // MARK: Questions

    /// The tag of a filtered query that has a view.
    public func tag(for query: QuerySpec) -> QueryTag? { queryToTag[query] }

    /// The query a tag stands for.
    public func query(for tag: QueryTag) -> QuerySpec? { tagToQuery[tag] }

    /// The complete data at `path` as the client sees it, hidden writes included and
    /// `excluding` left out (what a transaction starts from), or `nil` when no listen or write
    /// makes it known.
    public mutating func completeEventCache(at path: Path, excluding: Set<WriteID> = []) -> Node? {
        pendingWrites.applyDeferred()
        let serverCache = syncPoints.first(on: path) { syncPointPath, syncPoint in
            syncPoint.completeServerCache(at: syncPointPath.relative(to: path)!)
        }
        return pendingWrites.completeEventCache(at: path, server: serverCache, excluding: excluding, includingHidden: true)
    }

    /// The data a listener's view of `query` shows, when that view is complete (a filtered
    /// query's window the server sent), or `nil`.
    public func completeViewCache(for query: QuerySpec) -> Node? {
        syncPoints.value(at: query.path)?.view(for: query)?.completeEventNode
    }

    /// Whether a view answers `query` (some listener holds it).
    public func hasView(for query: QuerySpec) -> Bool {
        syncPoints.value(at: query.path)?.view(for: query) != nil
    }

    /// Every view's query and caches, by location then query (what `inspect` shows).
    /// - Complexity: O(v) for v views.
    public var viewCaches: [(query: QuerySpec, cache: ViewCache)] {
        var result: [(query: QuerySpec, cache: ViewCache)] = []
        syncPoints.forEach { _, syncPoint in
            for view in syncPoint.views { result.append((view.query, view.cache)) }
        }
        return result.sorted { $0.query.path < $1.query.path }
    }

    /// The server data a query's view holds (complete or not): what a listen's hash is taken of.
    public func serverCache(for query: QuerySpec) -> Node? {
        syncPoints.value(at: query.path)?.view(for: query)?.serverNode
    }

    // MARK: Applying operations

    private mutating func applyToSyncPoints(_ operation: Operation) -> [Event] {
        generation &+= 1
        // No view: nothing to apply to, nor any pending write to read.
        if syncPoints.isEmpty { return [] }
        pendingWrites.applyDeferred()
        let events = Self.apply(operation, to: &syncPoints, serverCache: nil, writes: WriteTreeRef(path: .root, tree: pendingWrites))
        return Self.labelled(events, operation.eventOrigin)
    }

    /// `events` with their origin set (events are made as coming from the server).
    private static func labelled(_ events: [Event], _ origin: EventOrigin) -> [Event] {
        guard origin != .server, !events.isEmpty else { return events }
        return events.map { event in
            var event = event
            event.origin = origin
            return event
        }
    }

    private mutating func applyTagged(_ operation: Operation, to query: QuerySpec) -> [Event] {
        generation &+= 1
        pendingWrites.applyDeferred()
        let writes = WriteTreeRef(path: query.path, tree: pendingWrites)
        return syncPoints.modify(at: query.path) { tree in
            guard var syncPoint = tree.value else { return [] }
            tree.value = nil
            let events = syncPoint.apply(operation, writes: writes, serverCacheAbove: nil)
            tree.value = syncPoint
            return events
        }
    }

    /// Applies `operation` to the sync points on its path and below it, deepest first.
    private static func apply(
        _ operation: Operation, to tree: inout ImmutableTree<SyncPoint>, serverCache: Node?, writes: WriteTreeRef
    ) -> [Event] {
        var events: [Event] = []
        // Complete server data here serves the sync points below. It is dropped before this
        // location's own views change, so that they change their data in place.
        if let key = operation.path.front {
            // The child on the operation's path: one search, which finds it or not.
            if !tree.children.isEmpty {
                let serverCacheBelow = serverCache ?? tree.value?.completeServerCache(at: .root)
                let childEvents = tree.children.modifyValue(forKey: key) { child -> [Event] in
                    guard let childOperation = operation.forChild(key) else { return [] }
                    return apply(childOperation, to: &child, serverCache: serverCacheBelow?.child(key), writes: writes.child(key))
                }
                if let childEvents { Self.gather(childEvents, into: &events) }
            }
        } else if !tree.children.isEmpty {
            // The operation is here: every child.
            let serverCacheBelow = serverCache ?? tree.value?.completeServerCache(at: .root)
            for key in tree.children.map(\.key) {
                guard let childOperation = operation.forChild(key) else { continue }
                // The child changes where it is stored, so its views stay uniquely owned.
                let childEvents = tree.children.modifyValue(forKey: key) { child in
                    apply(childOperation, to: &child, serverCache: serverCacheBelow?.child(key), writes: writes.child(key))
                }
                if let childEvents { Self.gather(childEvents, into: &events) }
            }
        }
        if var syncPoint = tree.value {
            tree.value = nil
            Self.gather(syncPoint.apply(operation, writes: writes, serverCacheAbove: serverCache), into: &events)
            tree.value = syncPoint
        }
        return events
    }

    /// Adds `more` to `events`: taken as they are when there is nothing yet (the usual case:
    /// one sync point on an operation's path; appending to an empty array copies into a new
    /// buffer).
    /// - Complexity: O(1) when `events` is empty, else O(m).
    private static func gather(_ more: [Event], into events: inout [Event]) {
        if events.isEmpty { events = more } else { events += more }
    }

    // MARK: Listens

    /// Starts the server listen for a new view, and stops the listens it covers when it loads
    /// all data.
    private mutating func startListen(for query: QuerySpec) {
        let tag = queryToTag[query]
        listenProvider.startListening(query.forListening, tag: tag)
        guard tag == nil else { return }
        let subtree = syncPoints.subtree(at: query.path)
        let covered = subtree.fold { (relative: Path, syncPoint: SyncPoint?, below: [(ChildKey, [QuerySpec])]) -> [QuerySpec] in
            if !relative.isEmpty, let complete = syncPoint?.completeView { return [complete.query] }
            var queries = syncPoint?.queryViews.map(\.query) ?? []
            for (_, childQueries) in below { queries += childQueries }
            return queries
        }
        for coveredQuery in covered {
            listenProvider.stopListening(coveredQuery.forListening, tag: queryToTag[coveredQuery])
        }
    }

    /// The views that need their own listen in `subtree`: a complete view covers everything
    /// below it; otherwise each filtered view.
    private static func distinctViews(in subtree: ImmutableTree<SyncPoint>) -> [View] {
        subtree.fold { (_: Path, syncPoint: SyncPoint?, below: [(ChildKey, [View])]) -> [View] in
            if let complete = syncPoint?.completeView { return [complete] }
            var views = syncPoint?.queryViews ?? []
            for (_, childViews) in below { views += childViews }
            return views
        }
    }

    private static func tree(of changes: [(Path, Node)]) -> ImmutableTree<Node> {
        var tree = ImmutableTree<Node>()
        for (path, node) in changes { tree = tree.setting(node, at: path) }
        return tree
    }
}
