import EmberCore
import GRDB

/// A JSON tree kept as one SQLite row per leaf (and per priority): the layout both stores use.
///
/// `path` is the keys joined by `/` (the root is the empty string, a priority the extra key
/// `.priority`), `value` the leaf's JSON. Keys cannot contain `/`, and `/` sorts just below `0`,
/// so the rows below `a/b` are exactly those in `('a/b/', 'a/b0')`.
struct LeafRows {
    /// The table: a constant of the store, never user input.
    let table: String

    /// The row path of `path`.
    /// - Complexity: O(k) in the length of the path's text.
    static func rowPath(_ path: Path) -> String {
        var text = ""
        for (index, key) in path.keys.enumerated() {
            if index > 0 { text += "/" }
            text += key.name
        }
        return text
    }

    /// The statements that change the table's rows, prepared for one transaction.
    /// - Throws: SQLite's error when they cannot be prepared.
    func writer(in db: Database) throws -> Writer {
        try Writer(table: table, db: db)
    }

    /// Changes the rows of one table inside one transaction (see ``BulkStatement``).
    struct Writer {
        private let table: String
        private let db: Database
        private let deleteAtAndBelow: BulkStatement
        private let deleteOne: BulkStatement
        private let upsertOne: BulkStatement

        fileprivate init(table: String, db: Database) throws {
            self.table = table
            self.db = db
            deleteAtAndBelow = try BulkStatement("DELETE FROM \(table) WHERE path = ? OR (path > ? AND path < ?)", in: db)
            deleteOne = try BulkStatement("DELETE FROM \(table) WHERE path = ?", in: db)
            upsertOne = try BulkStatement(
                "INSERT INTO \(table) (path, value) VALUES (?, ?) ON CONFLICT(path) DO UPDATE SET value = excluded.value", in: db)
        }

        /// Deletes the rows at and below `path`.
        /// - Complexity: O(log r + k) for k rows deleted.
        func deleteSubtree(_ path: Path) throws {
            if path.isEmpty {
                try db.execute(sql: "DELETE FROM \(table)")
                return
            }
            let text = LeafRows.rowPath(path)
            try deleteAtAndBelow.run(.text(text), .text(text + "/"), .text(text + "0"))
        }

        /// Whether any row other than its priority lies below `path`.
        /// - Complexity: O(log r).
        func hasRows(below path: Path) throws -> Bool {
            let text = LeafRows.rowPath(path)
            let prefix = text.isEmpty ? "" : text + "/"
            let upper = text.isEmpty ? nil : text + "0"
            let priority = prefix + ChildKey.priority.name
            if let upper {
                return try Bool.fetchOne(
                    db, sql: "SELECT EXISTS(SELECT 1 FROM \(table) WHERE path > ? AND path < ? AND path <> ?)",
                    arguments: [prefix, upper, priority]) ?? false
            }
            return try Bool.fetchOne(
                db, sql: "SELECT EXISTS(SELECT 1 FROM \(table) WHERE path <> '' AND path <> ?)", arguments: [priority]) ?? false
        }

        /// Deletes the row at exactly `path` (a leaf there).
        /// - Complexity: O(log r).
        func deleteRow(_ path: String) throws {
            try deleteOne.run(.text(path))
        }

        /// Inserts (or replaces) the rows of `node` at `path`.
        /// - Returns: how many rows.
        /// - Complexity: O(r log R) for the r rows of `node`.
        @discardableResult
        func insertRows(of node: Node, at path: Path) throws -> Int {
            if node.isEmpty { return 0 }
            var rows = 0
            if node.priority != nil {
                try upsert(LeafRows.rowPath(path.child(.priority)), node.child(.priority))
                rows += 1
            }
            if node.isLeaf {
                try upsert(LeafRows.rowPath(path), node.withPriority(nil))
                return rows + 1
            }
            for child in node.children { rows += try insertRows(of: child.node, at: path.child(child.key)) }
            return rows
        }

        /// Inserts or replaces the row at `path` with `leaf`'s JSON.
        /// - Complexity: O(log r).
        func upsert(_ path: String, _ leaf: Node) throws {
            try upsertOne.run(.text(path), .text(leaf.jsonString()))
        }
    }

    /// The tree the rows at and below `path` make, relative to `path`.
    ///
    /// Each row is checked by the rule every write passes (``Node/validate(at:)``), so that what
    /// was accepted always loads and what loads could have been written. A row that fails it (a
    /// value that is not JSON, a number that is not finite, a string or priority over the
    /// limits) is left out and reported in `problems` with its path: one bad row never locks
    /// the rest of the data away.
    /// - Throws: SQLite's error when the rows cannot be read.
    /// - Complexity: O(k log k) for k rows.
    func load(at path: Path, in db: Database, problems: inout [BadRow]) throws -> Node {
        var bytes = 0
        return try load(at: path, in: db, problems: &problems, bytes: &bytes)
    }

    /// The tree the rows at and below `path` make, as ``load(at:in:problems:)``, counting the
    /// bytes of the rows read (paths and values) in `bytes`.
    func load(at path: Path, in db: Database, problems: inout [BadRow], bytes: inout Int) throws -> Node {
        let text = Self.rowPath(path)
        let rows: RowCursor
        if path.isEmpty {
            rows = try Row.fetchCursor(db, sql: "SELECT path, value FROM \(table) ORDER BY path")
        } else {
            rows = try Row.fetchCursor(
                db, sql: "SELECT path, value FROM \(table) WHERE path = ? OR (path > ? AND path < ?) ORDER BY path",
                arguments: [text, text + "/", text + "0"])
        }
        var root = Node.empty
        // Priorities go on after the values they belong to: a priority on a node that does not
        // exist yet would be dropped.
        var priorities: [(Path, Node)] = []
        let prefix = text.isEmpty ? 0 : text.count + 1
        while let row = try rows.next() {
            let full: String = row[0]
            let value: String = row[1]
            bytes += full.utf8.count + value.utf8.count
            let relative = Path(unchecked: full.count > prefix ? String(full.dropFirst(prefix)) : "")
            do {
                if relative.back == .priority, let owner = relative.parent {
                    priorities.append((relative, try Self.priority(value, of: path.appending(owner))))
                } else {
                    let at = path.appending(relative)
                    let node = try Node(jsonText: value, at: at)
                    try node.validate(at: at)
                    root.set(node, at: relative)
                }
            } catch {
                problems.append(BadRow(path: "/" + full, reason: error.message))
            }
        }
        for (relative, priority) in priorities { root.set(priority, at: relative) }
        return root
    }

    /// The priority row `text` of the node at `owner`, checked as a write's priority is.
    private static func priority(_ text: String, of owner: Path) throws(EmberCore.DatabaseError) -> Node {
        let value = try Node(jsonText: text, at: owner)
        guard let leaf = value.leafValue, let priority = Priority(leaf) else {
            throw .invalidPriority("a priority must be a number or a string, not \(value.jsonString())", at: owner)
        }
        try Node(.bool(true), priority: priority).validate(at: owner)
        return value
    }
}
