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
    /// The queries of ``load(at:in:problems:bytes:skipping:)``, made once: a location read
    /// made its text every time (a seventh of reading a location that holds nothing).
    private let allRowsSQL: String
    let rangeSQL: String

    init(table: String) {
        self.table = table
        allRowsSQL = "SELECT path, value FROM \(table) ORDER BY path"
        rangeSQL = "SELECT path, value FROM \(table) WHERE path >= ? AND path < ? ORDER BY path"
    }

    /// Calls `body` with the row path and JSON of every row of `node` at the row path `text`
    /// (its priority's, then its leaf's or its children's), each child's path made from its
    /// parent's: what a commit and an import write.
    /// - Complexity: O(r) for its r rows.
    static func forEachRow(of node: Node, rowPath text: String, _ body: (_ path: String, _ value: String) throws -> Void) rethrows {
        if node.isEmpty { return }
        if node.priority != nil { try body(text.isEmpty ? ".priority" : text + "/.priority", node.child(.priority).jsonString()) }
        if node.isLeaf {
            try body(text, node.withPriority(nil).jsonString())
            return
        }
        for child in node.children {
            try forEachRow(of: child.node, rowPath: text.isEmpty ? child.key.name : text + "/" + child.key.name, body)
        }
    }

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

    /// Changes the rows of one table inside one transaction (see ``BulkStatement``). A class:
    /// its seven statements are handed around on every commit, one reference instead of a dozen.
    final class Writer {
        private let table: String
        private let db: Database
        private let deleteBelow: BulkStatement
        private let deleteOne: BulkStatement
        private let upsertOne: BulkStatement
        private let updateOne: BulkStatement
        private let insertOne: BulkStatement

        fileprivate init(table: String, db: Database) throws {
            self.table = table
            self.db = db
            // The row at a path and the range below it in two statements: an `OR` of the two
            // makes SQLite gather the rows in a temporary B-tree first.
            deleteBelow = try BulkStatement("DELETE FROM \(table) WHERE path > ? AND path < ?", in: db)
            deleteOne = try BulkStatement("DELETE FROM \(table) WHERE path = ?", in: db)
            insertOne = try BulkStatement("INSERT INTO \(table) (path, value) VALUES (?, ?)", in: db)
            updateOne = try BulkStatement("UPDATE \(table) SET value = ? WHERE path = ?", in: db)
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
            try deleteOne.run(.text(text))
            try deleteBelow.run(text: text + "/", text: text + "0")
        }

        /// Deletes the rows at and below `path` that writing `node` there does not replace: all
        /// of them, or, for a leaf (whose row at `path` its upsert replaces), those below it.
        /// A cache change or a commit that sets a leaf saves a statement (a fifth of the rows it
        /// writes, callgrind).
        /// - Complexity: O(log r + k) for k rows deleted of r.
        func clear(_ path: Path, for node: Node) throws {
            guard node.isLeaf, !path.isEmpty else { return try deleteSubtree(path) }
            let text = LeafRows.rowPath(path)
            try deleteBelow.run(text: text + "/", text: text + "0")
        }

        /// Applies an import's batch (``ImportBatch``) in its cleared range.
        /// - Returns: how many rows were written.
        func apply(_ batch: ImportBatch) throws -> Int {
            var rows = 0
            for operation in batch.operations {
                switch operation {
                case .clear(let path):
                    try deleteSubtree(path)
                case .insert(let path, let value):
                    try insertOne.run(text: path, text: value)
                    rows += 1
                case .priority(let path, let value):
                    try upsertOne.run(text: path, text: value)
                    rows += 1
                }
            }
            return rows
        }

        /// Whether any row other than its priority lies below `path`.
        /// - Complexity: O(log r).
        func hasRows(below path: Path) throws -> Bool {
            let text = LeafRows.rowPath(path)
            let prefix = text.isEmpty ? "" : text + "/"
            let upper = text.isEmpty ? nil : text + "0"
            let priority = prefix + ChildKey.priority.name
            // Cached: a commit asks it for the ancestors of each changed location not in memory.
            if let upper {
                return try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM \(table) WHERE path > ? AND path < ? AND path <> ?)"),
                    arguments: [prefix, upper, priority]) ?? false
            }
            return try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM \(table) WHERE path <> '' AND path <> ?)"), arguments: [priority]) ?? false
        }

        /// The JSON of the row at exactly `path` (a leaf there), if any.
        /// - Complexity: O(log r).
        func value(at path: String) throws -> String? {
            try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM \(table) WHERE path = ?"), arguments: [path])
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
            var rows = 0
            try LeafRows.forEachRow(of: node, rowPath: LeafRows.rowPath(path)) { path, value in
                try upsertOne.run(text: path, text: value)
                rows += 1
            }
            return rows
        }

        /// Replaces the row of a leaf at `path` known to be there (it held a leaf when last
        /// committed) with the rows of `node`, a leaf without a priority: an `UPDATE` by the
        /// primary key, a third cheaper than the upsert's insert that meets its conflict; the
        /// upsert when no row was there after all.
        /// - Complexity: O(log r).
        func replaceLeaf(at path: Path, with node: Node) throws {
            precondition(node.isLeaf && node.priority == nil, "one row, no priority")
            let text = LeafRows.rowPath(path)
            let value = node.jsonString()
            if try updateOne.run(text: value, text: text) == 0 { try upsertOne.run(text: text, text: value) }
        }

        /// Inserts or replaces the row at `path` with `leaf`'s JSON.
        /// - Complexity: O(log r).
        func upsert(_ path: String, _ leaf: Node) throws {
            try upsertOne.run(text: path, text: leaf.jsonString())
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
    /// - Parameter skipping: locations below `path` (relative to it) whose rows are left out,
    ///   neither parsed nor counted: the caller has them already (a location read over regions
    ///   in memory, which replace them). They must not nest.
    func load(at path: Path, in db: Database, problems: inout [BadRow], bytes: inout Int, skipping: [Path] = []) throws -> Node {
        var unapplied: [(path: Path, priority: Priority)] = []
        return try load(at: path, in: db, problems: &problems, bytes: &bytes, skipping: skipping, unappliedPriorities: &unapplied)
    }

    /// As ``load(at:in:problems:bytes:skipping:)``, and with `skipping`, the priorities read
    /// whose node holds nothing but skipped rows, each with its path relative to `path`: the
    /// node is empty here, so its priority cannot be set on it (a priority needs data), but the
    /// caller's data laid over it may fill it, and then the priority is the node's (a region in
    /// memory below an object with a priority, the object's other rows all in other regions).
    /// - Parameter range: the statement of ``rangeSQL`` prepared on `db`, when the caller keeps
    ///   it (GRDB's cache of statements hashes the SQL text on every look-up).
    func load(
        at path: Path, in db: Database, problems: inout [BadRow], bytes: inout Int, skipping: [Path],
        unappliedPriorities: inout [(path: Path, priority: Priority)], range: BulkStatement? = nil
    ) throws -> Node {
        let text = Self.rowPath(path)
        let rows: BulkStatement
        let arguments: [BulkStatement.Argument]
        // Cached statements, bound and stepped through SQLite's C API (a location is read for
        // every request that touches new data; GRDB's cursor cost more than SQLite's own work
        // for a location that holds nothing, measured with callgrind).
        if path.isEmpty {
            rows = try BulkStatement(allRowsSQL, in: db)
            arguments = []
        } else {
            // One range of the primary key, `text` up to `text0` (`0` follows `/`): the location's
            // row, then the rows below it, in order. It also holds the rows of siblings whose
            // keys extend this one with a byte below `/` (`b-c` beside `b`), left out below. An
            // `OR` of the exact row and the range below costs SQLite a temporary B-tree to order
            // the two (a third of a write to a new location, measured with callgrind).
            rows = try range ?? BulkStatement(rangeSQL, in: db)
            arguments = [.text(text), .text(text + "0")]
        }
        let own = text.utf8.count
        // Rows come in path order, so each location's rows are contiguous: the tree is built
        // with a stack of the open locations, each finished once when the rows leave it (no
        // walk from the root per row). A priority goes to its owner's parent as pending, applied
        // when the parent is finished (a leaf's priority row may come after its siblings: `a`,
        // `a-b`, `a/.priority` is path order), or to the owner itself while it is open.
        var builder = TreeBuilder(keepsUnapplied: !skipping.isEmpty)
        let prefix = text.isEmpty ? 0 : text.utf8.count + 1
        // The rows below a skipped location are contiguous in path order (its own row and its
        // leaf's priority row are not, and are found by the set).
        let skipped = Set(skipping.map { Self.rowPath($0) })
        let skippedDepth = skipping.map(\.count).max() ?? 0
        var skipping: String?
        try rows.forEachRow(arguments) { row in
            let full = BulkStatement.text(row, column: 0)
            // A sibling's row (`b-c` beside `b`): after the location's own path comes nothing
            // or a `/`.
            if !path.isEmpty, let next = full.utf8.dropFirst(own).first, next != UInt8(ascii: "/") { return }
            let relative = full.utf8.count > prefix ? String(full.utf8.dropFirst(prefix))! : ""
            if !skipped.isEmpty {
                if let current = skipping, relative.hasPrefix(current) { return }
                if let found = Self.skippedAncestor(of: relative, in: skipped, depth: skippedDepth) {
                    skipping = found + "/"
                    return
                }
            }
            let value = BulkStatement.text(row, column: 1)
            bytes += full.utf8.count + value.utf8.count
            // Split on the bytes: a key may begin with a combining mark, which `Character`s
            // would join to the `/` before it.
            let keys = Path(unchecked: relative).keys
            do throws(EmberCore.DatabaseError) {
                if keys.last?.isPriority == true {
                    let owner = Array(keys.dropLast())
                    let priority = try Self.priority(value, of: path.appending(Path(keys: owner)))
                    builder.setPriority(priority.leafValue.flatMap(Priority.init), of: owner)
                } else {
                    let at = path.appending(Path(keys: keys))
                    let node = try Node(jsonText: value, at: at)
                    try node.validate(at: at)
                    builder.add(node, at: keys)
                }
            } catch {
                problems.append(BadRow(path: "/" + full, reason: error.message))
            }
        }
        let node = builder.finish()
        unappliedPriorities = builder.unappliedPriorities.map { (Path(keys: $0.keys), $0.priority) }
        return node
    }

    /// The location of `skipped` at or above the relative row path `relative`, if any.
    /// - Complexity: O(d) hashes of the first d keys of the path.
    private static func skippedAncestor(of relative: String, in skipped: Set<String>, depth: Int) -> String? {
        var end = relative.utf8.startIndex
        var keys = 0
        while keys < depth {
            end = relative.utf8[end...].firstIndex(of: UInt8(ascii: "/")) ?? relative.utf8.endIndex
            let candidate = String(relative.utf8[..<end])!
            if skipped.contains(candidate) { return candidate }
            guard end < relative.utf8.endIndex else { return nil }
            end = relative.utf8.index(after: end)
            keys += 1
        }
        return nil
    }

    /// Builds a tree from leaves given in path order (see ``load(at:in:problems:bytes:)``).
    private struct TreeBuilder {
        struct Frame {
            var key: ChildKey?
            var children: [(ChildKey, Node)] = []
            var leaf: Node?
            var priority: Priority?
            var pending: [(ChildKey, Priority)] = []

            /// The node the frame's rows make. A priority whose node is empty is dropped, or,
            /// when `unapplied` is given, listed there with its keys (the frame is at `keys`).
            func node(at keys: [ChildKey], unapplied: inout [(keys: [ChildKey], priority: Priority)]?) -> Node {
                // A small object whose children carry no priority is kept flat (most of real
                // data: a fifth of the memory of a tree of its children).
                var node: Node
                if children.isEmpty {
                    node = leaf ?? .empty
                } else {
                    node = (pending.isEmpty ? Node(packing: children) : nil) ?? Node(children: children)
                }
                for (key, priority) in pending {
                    let child = node.child(key)
                    if !child.isEmpty {
                        node.setChild(key, child.withPriority(priority))
                    } else {
                        unapplied?.append((keys + [key], priority))
                    }
                }
                if let priority {
                    if !node.isEmpty {
                        node = node.withPriority(priority)
                    } else {
                        unapplied?.append((keys, priority))
                    }
                }
                return node
            }
        }

        private var stack = [Frame()]
        /// The priorities whose node was empty, when kept (a load that skips rows).
        private var unapplied: [(keys: [ChildKey], priority: Priority)]?

        init(keepsUnapplied: Bool) {
            unapplied = keepsUnapplied ? [] : nil
        }

        /// The priorities whose node was empty (none unless kept).
        var unappliedPriorities: [(keys: [ChildKey], priority: Priority)] { unapplied ?? [] }

        /// Sets the leaf `node` at `keys` (the location itself when empty).
        mutating func add(_ node: Node, at keys: [ChildKey]) {
            guard let last = keys.last else {
                stack[0].leaf = node
                return
            }
            open(keys.dropLast())
            stack[stack.count - 1].children.append((last, node))
        }

        /// Gives the node at `owner` its priority.
        mutating func setPriority(_ priority: Priority?, of owner: [ChildKey]) {
            guard let priority else { return }
            if openDepth(matching: owner[...]) == owner.count {
                stack[owner.count].priority = priority
                return
            }
            guard let last = owner.last else { return }
            open(owner.dropLast())
            stack[stack.count - 1].pending.append((last, priority))
        }

        /// How many of `keys` the open locations match, from the top.
        private func openDepth(matching keys: ArraySlice<ChildKey>) -> Int {
            var depth = 0
            while depth < keys.count, depth + 1 < stack.count, stack[depth + 1].key == keys[keys.startIndex + depth] { depth += 1 }
            return depth
        }

        /// Makes `keys` the open locations: those below the common part are finished.
        private mutating func open(_ keys: ArraySlice<ChildKey>) {
            let common = openDepth(matching: keys)
            while stack.count > common + 1 { close() }
            for key in keys.dropFirst(common) { stack.append(Frame(key: key)) }
        }

        private mutating func close() {
            // The frame's keys, made only when they may be listed.
            let keys = unapplied == nil ? [] : stack.dropFirst().map { $0.key! }
            let frame = stack.removeLast()
            let node = frame.node(at: keys, unapplied: &unapplied)
            if !node.isEmpty, let key = frame.key { stack[stack.count - 1].children.append((key, node)) }
        }

        mutating func finish() -> Node {
            while stack.count > 1 { close() }
            return stack[0].node(at: [], unapplied: &unapplied)
        }
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
