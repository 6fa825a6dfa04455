import EmberCore

extension ClientStore {
    /// The query as tracked: one that loads all data is the default query at its location.
    static func tracked(_ query: QuerySpec) -> QuerySpec {
        query.loadsAllData ? .default(at: query.path) : query
    }

    /// The tracked query for `query`, if any.
    public func trackedQuery(_ query: QuerySpec) -> TrackedQuery? { queries[Self.tracked(query)] }

    /// The tracked queries, oldest use first.
    public var trackedQueries: [TrackedQuery] { queries.records.sorted { ($0.lastUse, $0.id) < ($1.lastUse, $1.id) } }

    /// A listener holds `query` now: it is tracked (if new), active, and used `now`.
    /// - Complexity: O(1).
    public func setQueryActive(_ query: QuerySpec, now: Int64) {
        update(query, now: now) { $0.activity = .active }
    }

    /// No listener holds `query` any more; its data stays cached until pruned.
    public func setQueryInactive(_ query: QuerySpec, now: Int64) {
        guard queries[Self.tracked(query)] != nil else { return }
        update(query, now: now) { $0.activity = .inactive }
    }

    /// The server has sent all of `query`'s data; for a filtered query, `keys` are the children
    /// in its window.
    public func setQueryComplete(_ query: QuerySpec, keys: Set<ChildKey>, now: Int64) {
        update(query, now: now) {
            $0.completeness = .complete
            if !query.loadsAllData { $0.keys = keys }
        }
    }

    /// The children now in a complete filtered query's window.
    public func setTrackedKeys(_ query: QuerySpec, _ keys: Set<ChildKey>) {
        let tracked = Self.tracked(query)
        guard !tracked.loadsAllData, var record = queries[tracked], record.isComplete, record.keys != keys else { return }
        record.keys = keys
        queries[tracked] = record
        queryChanges[record.id] = record
    }

    /// Forgets the cached server data at and below `path`, and marks every complete query whose
    /// data it was part of (at, above or below `path`) as partial: what a client does instead of
    /// keeping a large confirmed write (an import) in its cache, so that the cache never claims
    /// more than it holds.
    /// - Complexity: O(q) for q tracked queries, plus the rows deleted at the commit.
    public func forgetServerCache(at path: Path) {
        overwriteServerCache(.empty, at: path)
        for var record in queries.records where record.isComplete && (record.query.path.contains(path) || path.contains(record.query.path)) {
            record.completeness = .partial
            queries[record.query] = record
            queryChanges[record.id] = record
        }
    }

    /// How far apart two recorded uses of a query must be: pruning needs the order of uses, not
    /// each one, and a query written to many times a second would otherwise be saved each time.
    static let lastUseResolution: Int64 = 1_000

    private func update(_ query: QuerySpec, now: Int64, _ change: (inout TrackedQuery) -> Void) {
        let tracked = Self.tracked(query)
        let kept = queries.update(tracked, orMake: {
            defer { nextQueryID += 1 }
            return TrackedQuery(id: nextQueryID, query: tracked, completeness: .partial, activity: .inactive, lastUse: now)
        }) { before, record in
            change(&record)
            if record == before && now - record.lastUse < Self.lastUseResolution { return false }
            record.lastUse = max(record.lastUse, now)
            return true
        }
        if let kept { queryChanges[kept.id] = kept }
    }

    /// Whether an active default query at or above `path` keeps its data synced.
    /// - Complexity: O(d) for a path of depth d.
    public func hasActiveDefaultQuery(at path: Path) -> Bool {
        queries.activeDefaultCovers(path)
    }

    // MARK: Reading the cache for a query

    /// Whether the cache holds all of `query`'s data: a default query at or above its location
    /// completed, or the query itself did.
    /// - Complexity: O(d) for a path of depth d.
    public func isComplete(_ query: QuerySpec) -> Bool {
        if queries.completeDefaultCovers(query.path) { return true }
        return !query.loadsAllData && queries[query]?.isComplete == true
    }

    /// The children of `path` whose data the cache holds whole: those in the windows of complete
    /// filtered queries there, and those with a complete default query of their own.
    func knownCompleteChildren(of path: Path) -> Set<ChildKey> {
        var keys: Set<ChildKey> = []
        for record in queries.records where record.isComplete {
            if record.query.path == path, !record.query.loadsAllData {
                keys.formUnion(record.keys)
            } else if record.query.loadsAllData, record.query.path.parent == path, let key = record.query.path.back {
                keys.insert(key)
            }
        }
        return keys
    }

    /// What the cache knows of `query`'s server data, and how far it can be trusted.
    /// - Throws: ``StoreError`` when the cache cannot be read.
    public func serverCache(for query: QuerySpec) throws(StoreError) -> StoredServerCache {
        let keys: Set<ChildKey>
        let coverage: StoredServerCache.Coverage
        if isComplete(query) {
            guard let record = queries[Self.tracked(query)], !query.loadsAllData, record.isComplete,
                !isComplete(.default(at: query.path))
            else {
                return StoredServerCache(node: try cachedNode(at: query.path), coverage: .complete)
            }
            keys = record.keys
            coverage = .completeWindow
        } else {
            keys = knownCompleteChildren(of: query.path)
            coverage = .partial
        }
        if keys.isEmpty { return StoredServerCache(node: .empty, coverage: coverage) }
        let node = try cachedNode(at: query.path)
        var filtered = Node.empty
        for key in keys {
            let child = node.child(key)
            if !child.isEmpty { filtered.setChild(key, child) }
        }
        return StoredServerCache(node: filtered, coverage: coverage)
    }
}
