import EmberCore
import Foundation
import GRDB
import GRDBSQLite

/// The indexes kept with the data: for a location and a value or child order, every child's
/// ``IndexSortKey`` in the table `index_entries`, keyed by the index's id and the sort key. A
/// query reads its window as one range of that table and then only the children it returns,
/// so that an indexed query on a database just opened answers without loading the location it
/// orders (100,000 users: a range of 10 sort keys and 10 location reads, not 500,000 rows).
///
/// Each index is kept exactly in step with the rows, in the transaction that changes them:
/// a commit or an import recomputes, from the rows themselves, the sort key of every child a
/// changed path lies in (before the rows change and after), and rebuilds an index whose
/// location a change replaces, or lies below.
extension ServerStore {
    /// The indexes the store keeps.
    public var storedIndexes: [StoredIndex] { keptIndexes }

    /// The index of `location`'s children in `order`, when the store keeps it.
    /// - Complexity: O(i) for i indexes kept.
    public func storedIndex(at location: Path, _ order: Index) -> StoredIndex? {
        keptIndexes.first { $0.location == location && $0.order == order }
    }

    /// Reads the list of indexes kept.
    func readKeptIndexes() throws(StoreError) -> [StoredIndex] {
        try queue.reading("read the indexes", of: "the server's store", at: location) { db in
            try Row.fetchAll(db, sql: "SELECT id, location, ord FROM indexes ORDER BY id").compactMap { row in
                guard let order = StoredIndex.order(named: row[2]) else { return nil }
                return StoredIndex(id: row[0], location: Path(unchecked: row[1]), order: order)
            }
        }
    }

    /// Builds the index of `location`'s children in `order` from the committed rows, and keeps
    /// it from then on.
    /// - Precondition: no change at, above or below `location` waits for a commit
    ///   (``hasChanges(touching:)``), and `order` is `.value` or `.child(path)`.
    /// - Throws: ``StoreError`` when the store is read-only or cannot be written.
    /// - Complexity: O(r + n log n) for the r rows below `location` and its n children.
    @discardableResult
    public func buildIndex(at location: Path, _ order: Index) throws(StoreError) -> StoredIndex {
        if let kept = storedIndex(at: location, order) { return kept }
        precondition(!hasChanges(touching: location), "commit the changes at \(location) first")
        if isReadOnly {
            throw StoreError("the server's store at \(self.location) is read-only", code: EmberCore.ErrorCode.readOnly)
        }
        var built: StoredIndex?
        do {
            try queue.inTransaction { db in
                built = try Self.insertIndex(at: location, order, in: db)
                return .commit
            }
        } catch {
            throw StoreError("cannot build the index of \(location) by \(order.wireName) in the server's store at \(self.location)", error)
        }
        keptIndexes.append(built!)
        return built!
    }

    /// Stops keeping `index` and deletes its entries.
    /// - Throws: ``StoreError`` when the store cannot be written.
    public func dropIndex(_ index: StoredIndex) throws(StoreError) {
        guard !isReadOnly else { return }
        do {
            try queue.inTransaction { db in
                try db.execute(sql: "DELETE FROM index_entries WHERE idx = ?", arguments: [index.id])
                try db.execute(sql: "DELETE FROM indexes WHERE id = ?", arguments: [index.id])
                return .commit
            }
        } catch {
            throw StoreError("cannot drop the index of \(index.location) by \(index.order.wireName) in the server's store at \(location)", error)
        }
        keptIndexes.removeAll { $0 == index }
    }

    /// The keys of the children `params` returns from `index`, in the query's order: one range
    /// of sort keys, as committed.
    /// - Precondition: `params` orders by the index's order.
    /// - Throws: ``StoreError`` when the store cannot be read.
    /// - Complexity: O(log e + k) for k keys of e entries.
    public func queryIndex(_ index: StoredIndex, _ params: QueryParams) throws(StoreError) -> [ChildKey] {
        precondition(params.index == index.order, "a query by \(params.index) cannot use an index by \(index.order)")
        var conditions = ["idx = ?"]
        var arguments: [any DatabaseValueConvertible] = [index.id]
        func bound(_ bound: RangeBound?, including: String, excluding: String) {
            let position: IndexPosition
            switch bound {
            case .including(let at)?:
                conditions.append("sortkey \(including) ?")
                position = at
            case .excluding(let at)?:
                conditions.append("sortkey \(excluding) ?")
                position = at
            case nil:
                return
            }
            arguments.append(Data(IndexSortKey(bound: position).bytes))
        }
        bound(params.start, including: ">=", excluding: ">")
        bound(params.end, including: "<=", excluding: "<")
        var sql = "SELECT sortkey FROM index_entries WHERE " + conditions.joined(separator: " AND ")
        var backwards = false
        switch params.limit {
        case .first(let count)?:
            sql += " ORDER BY sortkey LIMIT \(count)"
        case .last(let count)?:
            sql += " ORDER BY sortkey DESC LIMIT \(count)"
            backwards = true
        case nil:
            sql += " ORDER BY sortkey"
        }
        let keys = try queue.readingDirectly("read the index of \(index.location) by \(index.order.wireName)", of: "the server's store", at: location) { db in
            let rows = try Data.fetchCursor(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments))
            var keys: [ChildKey] = []
            while let bytes = try rows.next() {
                guard let key = IndexSortKey(bytes: [UInt8](bytes)).childKey else {
                    throw StoreError("the index of \(index.location) by \(index.order.wireName) holds a damaged entry")
                }
                keys.append(key)
            }
            return keys
        }
        return backwards ? keys.reversed() : keys
    }

    // MARK: Keeping indexes in step, inside a transaction

    /// What a transaction changing the rows at `paths` must do to the kept indexes: rebuild
    /// those a path replaces, and place again the children the others lie in, each once.
    struct IndexChanges {
        var rebuilt: [StoredIndex] = []
        var children: [(index: StoredIndex, key: ChildKey, before: IndexSortKey?)] = []
        var isEmpty: Bool { rebuilt.isEmpty && children.isEmpty }
    }

    /// Notes, before the rows change at `paths`, what the kept indexes must do, with each moved
    /// child's sort key as the rows hold it now.
    /// - Complexity: O(i·p) for i indexes and p paths, plus two row look-ups a moved child.
    static func indexChanges(
        for paths: [Path], in kept: [StoredIndex], with writer: LeafRows.Writer
    ) throws -> IndexChanges {
        var changes = IndexChanges()
        guard !kept.isEmpty else { return changes }
        var seen: Set<StoredIndex> = []
        var moved: Set<Path> = []
        for index in kept {
            for path in paths {
                switch index.effect(of: path) {
                case .none: continue
                case .whole:
                    if seen.insert(index).inserted { changes.rebuilt.append(index) }
                case .child(let key):
                    moved.insert(index.location.child(key))
                }
            }
        }
        for index in kept where !seen.contains(index) {
            for child in moved where child.parent == index.location {
                let key = child.keys[child.count - 1]
                changes.children.append((index, key, try sortKey(of: key, in: index, with: writer)))
            }
        }
        return changes
    }

    /// Brings the kept indexes in step with the rows as they now are, after the changes that
    /// ``indexChanges(for:in:with:)`` noted.
    static func apply(_ changes: IndexChanges, with writer: LeafRows.Writer, in db: Database) throws {
        // No index kept, or none touched: no statement to prepare (two cost a commit 2,400
        // instructions).
        guard !changes.isEmpty else { return }
        for index in changes.rebuilt { try rebuildEntries(of: index, in: db) }
        let delete = try BulkStatement("DELETE FROM index_entries WHERE idx = ? AND sortkey = ?", in: db)
        let insert = try BulkStatement("INSERT OR REPLACE INTO index_entries (idx, sortkey) VALUES (?, ?)", in: db)
        for (index, key, before) in changes.children {
            let after = try sortKey(of: key, in: index, with: writer)
            if before == after { continue }
            if let before { try delete.run(.integer(index.id), .blob(before.bytes)) }
            if let after { try insert.run(.integer(index.id), .blob(after.bytes)) }
        }
    }

    /// Adds the index of `location` by `order` to the `indexes` table (or finds it there) and
    /// fills its entries from the rows.
    static func insertIndex(at location: Path, _ order: Index, in db: Database) throws -> StoredIndex {
        let index = try defineIndex(at: location, order, in: db)
        try rebuildEntries(of: index, in: db)
        return index
    }

    /// Adds the index of `location` by `order` to the `indexes` table, or finds it there.
    static func defineIndex(at location: Path, _ order: Index, in db: Database) throws -> StoredIndex {
        let text = LeafRows.rowPath(location)
        try db.execute(sql: "INSERT OR IGNORE INTO indexes (location, ord) VALUES (?, ?)", arguments: [text, order.wireName])
        let id = try Int64.fetchOne(db, sql: "SELECT id FROM indexes WHERE location = ? AND ord = ?", arguments: [text, order.wireName])!
        return StoredIndex(id: id, location: location, order: order)
    }

    /// Replaces the entries of `index` with `keys`.
    /// - Complexity: O(n log n) for n keys (sorted first: inserted in order, they fill the
    ///   table's pages one after the other).
    static func insertEntries(_ keys: [IndexSortKey], of index: StoredIndex, in db: Database) throws {
        try db.execute(sql: "DELETE FROM index_entries WHERE idx = ?", arguments: [index.id])
        let insert = try BulkStatement("INSERT OR REPLACE INTO index_entries (idx, sortkey) VALUES (?, ?)", in: db)
        for key in keys.sorted() { try insert.run(.integer(index.id), .blob(key.bytes)) }
    }

    /// Replaces the entries of `index` with the sort keys of the children the rows now hold.
    /// - Complexity: O(r + n log n) for the r rows below the location and its n children.
    static func rebuildEntries(of index: StoredIndex, in db: Database) throws {
        let text = LeafRows.rowPath(index.location)
        let scan = try BulkStatement(
            text.isEmpty ? "SELECT path, value FROM leaves" : "SELECT path, value FROM leaves WHERE path > ? AND path < ?", in: db)
        let prefix = text.isEmpty ? 0 : text.utf8.count + 1
        let target: [UInt8]?
        switch index.order {
        case .child(let path): target = Array(LeafRows.rowPath(path).utf8)
        default: target = nil
        }
        let below = (target ?? []) + [UInt8(ascii: "/")]
        let priority = Array(ChildKey.priority.name.utf8)
        let targetPriority = below + priority
        // The rows come in path order, so that a child's rows are contiguous (a leaf's priority
        // row may come after a sibling's, and is not looked at): each child is finished when
        // the rows leave it. Read as SQLite's bytes, with no string made per row (a location of
        // 100,000 children has a million rows).
        var values: [String: IndexedValueKey.Value] = [:]
        var current: [UInt8] = []
        var value = IndexedValueKey.Value.null
        var open = false
        func finish() {
            guard open else { return }
            let key = String(decoding: current, as: UTF8.self)
            if case .null = values[key] ?? .null { values[key] = value }
        }
        let bounds: [BulkStatement.Argument] = text.isEmpty ? [] : [.text(text + "/"), .text(text + "0")]
        func row(_ handle: OpaquePointer?) {
            let path = UnsafeBufferPointer(start: sqlite3_column_text(handle, 0), count: Int(sqlite3_column_bytes(handle, 0)))
            guard path.count > prefix else { return }
            let relative = UnsafeBufferPointer(rebasing: path[prefix...])
            let slash = relative.firstIndex(of: UInt8(ascii: "/"))
            let key = UnsafeBufferPointer(rebasing: relative[..<(slash ?? relative.count)])
            let rest = slash.map { UnsafeBufferPointer(rebasing: relative[($0 + 1)...]) } ?? UnsafeBufferPointer(start: nil, count: 0)
            if key.elementsEqual(priority) || rest.elementsEqual(priority) { return }
            if !open || !key.elementsEqual(current) {
                finish()
                current = Array(key)
                value = .null
                open = true
            }
            if let target {
                if rest.elementsEqual(target) {
                    value = leafValue(handle)
                } else if rest.starts(with: below), !rest.elementsEqual(targetPriority) {
                    value = .object
                }
            } else {
                value = rest.isEmpty ? leafValue(handle) : .object
            }
        }
        try scan.forEachRow(bounds, body: row)
        finish()
        try insertEntries(values.map { IndexSortKey(IndexedValueKey($0.value, ChildKey(unchecked: $0.key))) }, of: index, in: db)
    }

    /// The value column of the row `handle` stands on, as an index orders it.
    private static func leafValue(_ handle: OpaquePointer?) -> IndexedValueKey.Value {
        let bytes = UnsafeBufferPointer(start: sqlite3_column_text(handle, 1), count: Int(sqlite3_column_bytes(handle, 1)))
        return leafValue(String(decoding: bytes, as: UTF8.self))
    }

    /// The sort key of the child at `key` in `index`, from the rows as they are now (`nil`:
    /// the child has no rows).
    /// - Complexity: O(log r): at most four row look-ups.
    static func sortKey(of key: ChildKey, in index: StoredIndex, with writer: LeafRows.Writer) throws -> IndexSortKey? {
        let child = index.location.child(key)
        let leaf = try writer.value(at: LeafRows.rowPath(child))
        if leaf == nil, try !writer.hasRows(below: child) { return nil }
        let value: IndexedValueKey.Value
        switch index.order {
        case .child(let path):
            if leaf != nil {
                value = .null
            } else {
                let target = child.appending(path)
                if let text = try writer.value(at: LeafRows.rowPath(target)) {
                    value = leafValue(text)
                } else {
                    value = try writer.hasRows(below: target) ? .object : .null
                }
            }
        default:
            value = leaf.map { leafValue($0) } ?? .object
        }
        return IndexSortKey(IndexedValueKey(value, key))
    }

    /// A leaf row's value as an index orders it; a row that is not a leaf's JSON (a bad row,
    /// left out when its location is read) orders as `null`.
    private static func leafValue(_ json: String) -> IndexedValueKey.Value {
        guard let node = try? Node(jsonText: json), let leaf = node.leafValue else { return .null }
        return .leaf(leaf)
    }
}
