import EmberCore
import GRDB

extension ClientStore {
    /// The share of inactive queries pruned at each step while the cache is too big.
    static let pruneShare = 0.2

    /// Prunes the cached data of the least recently used inactive queries, a fifth of them at a
    /// time, until the cache fits ``cacheSizeLimit`` or no inactive query is left. The data of
    /// active and pinned queries, and at the locations of queued writes, stays.
    /// - Returns: how many queries were pruned.
    /// - Throws: ``StoreError`` when the cache cannot be measured or changed.
    /// - Complexity: O(r + q log q + p d) for r cached rows, q tracked queries and p kept
    ///   locations of depth d: the cache is measured once, then each step subtracts what it
    ///   deleted; each row is visited by the steps whose pruned locations hold it.
    @discardableResult
    public func pruneIfNeeded() throws(StoreError) -> Int {
        var size = try cacheSize()
        guard size > cacheSizeLimit else { return 0 }
        // Least recently used first; the order does not change while pruning.
        let prunable = trackedQueries.filter { !$0.isActive && !pins.contains($0.query) }
        var kept = KeptPaths()
        for record in queries.records {
            for path in Self.keptPaths(of: record) { kept.insert(path) }
        }
        for pin in pins { kept.insert(pin.path) }
        for path in writeLocations.values { kept.insert(path) }
        var pruned = 0
        while size > cacheSizeLimit && pruned < prunable.count {
            let count = max(1, Int((Double(prunable.count - pruned) * Self.pruneShare).rounded(.up)))
            let victims = prunable[pruned..<pruned + count]
            for victim in victims {
                queries[victim.query] = nil
                queryChanges[victim.id] = .some(nil)
                for path in Self.keptPaths(of: victim) { kept.remove(path) }
            }
            size -= try prune(victims.map(\.query.path), keeping: kept)
            pruned += count
        }
        return pruned
    }

    /// The locations whose cached data a tracked query keeps: its own (a filtered one's window
    /// children only).
    private static func keptPaths(of record: TrackedQuery) -> [Path] {
        record.query.loadsAllData ? [record.query.path] : record.keys.map { record.query.path.child($0) }
    }

    /// Deletes the cached rows at and below each of `paths`, except at and below `kept`, and the
    /// pruned queries, in one transaction.
    /// - Returns: how many bytes of cached data went (as ``cacheSize()`` counts them).
    /// - Complexity: O(p log p + k log r) for p paths and k rows at and below them: the
    ///   locations with nothing kept below go in one statement; the rows below the others are
    ///   each checked against `kept` in O(d).
    private func prune(_ paths: [Path], keeping kept: KeptPaths) throws(StoreError) -> Int {
        let queryChanges = self.queryChanges
        // Outermost first; a location inside one already pruned whole adds nothing.
        var whole: [Path] = []
        var rowByRow: [Path] = []
        for path in paths.sorted() where !kept.keeps(path) {
            if let last = whole.last, last.contains(path) { continue }
            if kept.keepsBelow(path) { rowByRow.append(path) } else { whole.append(path) }
        }
        var removed = 0
        do {
            try queue.inTransaction { db in
                let writer = try Self.rows.writer(in: db)
                for path in rowByRow {
                    let text = LeafRows.rowPath(path)
                    let rows = try Row.fetchAll(
                        db, sql: "SELECT path, length(path) + length(value) FROM cache WHERE path = ? OR (path > ? AND path < ?)",
                        arguments: [text, text + "/", text + "0"])
                    for row in rows {
                        let rowPath: String = row[0]
                        if kept.keeps(Path(unchecked: rowPath)) { continue }
                        try writer.deleteRow(rowPath)
                        removed += row[1] as Int
                    }
                }
                if whole.first?.isEmpty == true {
                    removed += try Int.fetchOne(db, sql: "SELECT coalesce(sum(length(path) + length(value)), 0) FROM cache") ?? 0
                    try writer.deleteSubtree(.root)
                } else if !whole.isEmpty {
                    // Each location's rows by a range of the primary key, all in one statement.
                    let list = JSONValue.array(whole.map { .string(LeafRows.rowPath($0)) }).serialized()
                    let matching = """
                        FROM json_each(?) AS pruned JOIN cache ON cache.path = pruned.value
                            OR (cache.path > pruned.value || '/' AND cache.path < pruned.value || '0')
                        """
                    removed += try Int.fetchOne(
                        db, sql: "SELECT coalesce(sum(length(cache.path) + length(cache.value)), 0) \(matching)", arguments: [list]) ?? 0
                    try db.execute(sql: "DELETE FROM cache WHERE path IN (SELECT cache.path \(matching))", arguments: [list])
                }
                let gone = queryChanges.compactMap { id, change in change == nil ? JSONValue.int(id) : nil }
                if !gone.isEmpty {
                    try db.execute(
                        sql: "DELETE FROM queries WHERE id IN (SELECT value FROM json_each(?))", arguments: [JSONValue.array(gone).serialized()])
                }
                return .commit
            }
        } catch {
            throw StoreError("cannot prune the client's store at \(location)", error)
        }
        for (id, change) in queryChanges where change == nil { self.queryChanges[id] = nil }
        return removed
    }
}
