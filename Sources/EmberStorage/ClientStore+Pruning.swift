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
    @discardableResult
    public func pruneIfNeeded() throws(StoreError) -> Int {
        var pruned = 0
        while try cacheSize() > cacheSizeLimit {
            let prunable = trackedQueries.filter { !$0.isActive && !pins.contains($0.query) }
            if prunable.isEmpty { break }
            let count = max(1, Int((Double(prunable.count) * Self.pruneShare).rounded(.up)))
            let victims = prunable.prefix(count)
            for victim in victims {
                queries[victim.query] = nil
                queryChanges[victim.id] = .some(nil)
            }
            try prune(victims.map(\.query.path), keeping: keptPaths())
            pruned += victims.count
        }
        return pruned
    }

    /// The locations whose cached data must stay: every remaining tracked query's (a filtered
    /// one's window children only), every pin's, every queued write's.
    private func keptPaths() -> [Path] {
        var kept: [Path] = []
        for record in queries.values {
            if record.query.loadsAllData {
                kept.append(record.query.path)
            } else {
                for key in record.keys { kept.append(record.query.path.child(key)) }
            }
        }
        for pin in pins { kept.append(pin.path) }
        kept.append(contentsOf: writeLocations.keys)
        return kept
    }

    /// Deletes the cached rows at and below each of `paths`, except at and below `kept`, and the
    /// pruned queries, in one transaction.
    private func prune(_ paths: [Path], keeping kept: [Path]) throws(StoreError) {
        let queryChanges = self.queryChanges
        do {
            try queue.inTransaction { db in
                for path in paths {
                    if kept.contains(where: { $0.contains(path) }) { continue }
                    let inside = kept.filter { path.contains($0) }.map { LeafRows.rowPath($0) }
                    if inside.isEmpty {
                        try Self.rows.deleteSubtree(path, in: db)
                        continue
                    }
                    let text = LeafRows.rowPath(path)
                    let rowPaths = try String.fetchAll(
                        db, sql: "SELECT path FROM cache WHERE path = ? OR (path > ? AND path < ?)",
                        arguments: [text, text.isEmpty ? "" : text + "/", text.isEmpty ? "\u{10FFFF}" : text + "0"])
                    for row in rowPaths where !inside.contains(where: { row == $0 || row.hasPrefix($0 + "/") }) {
                        try Self.rows.deleteRow(row, in: db)
                    }
                }
                for (id, change) in queryChanges where change == nil {
                    try db.execute(sql: "DELETE FROM queries WHERE id = ?", arguments: [id])
                }
                return .commit
            }
        } catch {
            throw StoreError("cannot prune the client's store at \(location)", error)
        }
        for (id, change) in queryChanges where change == nil { self.queryChanges[id] = nil }
    }
}
