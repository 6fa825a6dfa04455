import EmberCore
import GRDB

/// `export` from the store: the data at a location written as the export format's JSON
/// straight from its rows, in path order, without building the tree in memory.
extension ServerStore {
    /// Writes the data at `path` as committed, in the export format (priorities as
    /// `.priority`, a leaf with one as `{".value": …, ".priority": …}`), indented by two spaces
    /// as `JSONValue.serialized(pretty:)` writes it, to `sink` in chunks, from one read
    /// transaction. Members come in the rows' order (keys by their bytes: `"10"` before `"9"`,
    /// where the tree orders integer keys by value); a document read back is the same data.
    /// - Returns: how many bytes were written.
    /// - Throws: ``StoreError`` when the rows cannot be read; what `sink` throws.
    /// - Complexity: O(r) for the r rows at and below `path`, in memory of their priorities.
    public func export(at path: Path, to sink: (String) throws -> Void) throws -> Int {
        let text = LeafRows.rowPath(path)
        let lower = text.isEmpty ? "" : text + "/"
        let upper = text.isEmpty ? nil : text + "0"
        do {
            return try queue.read { db in
                // A leaf above the location: nothing is there.
                var ancestor = path
                var ancestors: [String] = []
                while ancestor.removeLastKey() != nil { ancestors.append(LeafRows.rowPath(ancestor)) }
                if !ancestors.isEmpty {
                    let marks = Array(repeating: "?", count: ancestors.count).joined(separator: ",")
                    if try Bool.fetchOne(
                        db, sql: "SELECT EXISTS(SELECT 1 FROM leaves WHERE path IN (\(marks)))", arguments: StatementArguments(ancestors))
                        == true
                    {
                        try sink("null\n")
                        return 5
                    }
                }
                let range = upper == nil ? "" : "WHERE path = ? OR (path > ? AND path < ?)"
                let arguments: StatementArguments = upper.map { [text, lower, $0] } ?? []
                // First the priorities (few, as a rule): an object's goes after its children, and
                // a leaf's row may come before its priority row with siblings between them.
                var priorities: [String: String] = [:]
                let priorityRows = try Row.fetchCursor(
                    db,
                    sql: "SELECT path, value FROM leaves \(range.isEmpty ? "WHERE" : range + " AND") (path = '.priority' OR path LIKE '%/.priority')",
                    arguments: arguments)
                while let row = try priorityRows.next() {
                    let full: String = row[0]
                    priorities[String(full.dropLast(full == ".priority" ? 9 : 10))] = row[1]
                }
                var writer = ExportTextWriter(location: text, priorities: priorities)
                var written = 0
                let rows = try Row.fetchCursor(db, sql: "SELECT path, value FROM leaves \(range) ORDER BY path", arguments: arguments)
                while let row = try rows.next() {
                    let full: String = row[0]
                    if full == ".priority" || full.hasSuffix("/.priority") { continue }
                    writer.add(rowPath: full, value: row[1])
                    if writer.pendingBytes >= 1 << 16 {
                        let chunk = writer.take()
                        written += chunk.utf8.count
                        try sink(chunk)
                    }
                }
                let last = writer.finish()
                written += last.utf8.count
                try sink(last)
                return written
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError("cannot export from the server's store at \(location)", error)
        }
    }
}

/// Writes rows in path order as indented JSON: a stack of the open objects, each closed (its
/// priority last) when the rows leave it.
private struct ExportTextWriter {
    private struct Frame {
        let rowPath: String
        var members = 0
    }

    private let locationLength: Int
    private let priorities: [String: String]
    private var stack: [Frame] = []
    private var output = ""
    private var wroteLeafAtLocation = false
    /// The keys of the open objects below the location.
    private var openKeys: [String] = []

    init(location: String, priorities: [String: String]) {
        locationLength = location.isEmpty ? 0 : location.utf8.count + 1
        self.priorities = priorities
        stackRoot = location
    }

    /// The bytes written and not yet taken.
    var pendingBytes: Int { output.utf8.count }

    /// What was written since the last call.
    mutating func take() -> String {
        defer { output = "" }
        return output
    }

    private let stackRoot: String

    mutating func add(rowPath full: String, value: String) {
        if full.utf8.count == stackRoot.utf8.count {
            // The location itself holds a leaf.
            guard stack.isEmpty, !wroteLeafAtLocation else { return }
            wroteLeafAtLocation = true
            writeLeaf(value, priority: priorities[full], depth: 0)
            return
        }
        if wroteLeafAtLocation { return }
        // Split on the bytes (`Path`): a key may begin with a combining mark.
        let keys = Path(unchecked: String(full.utf8.dropFirst(locationLength))!).keys.map(\.name)
        if stack.isEmpty {
            output += "{"
            stack.append(Frame(rowPath: stackRoot))
        }
        let parent = keys.dropLast()
        var common = 0
        while common < openKeys.count, common < parent.count, StringOrder.bytesEqual(openKeys[common], parent[parent.startIndex + common]) {
            common += 1
        }
        while openKeys.count > common { close() }
        for key in parent.dropFirst(common) {
            beginMember(key)
            output += "{"
            let rowPath = stack[stack.count - 1].rowPath.isEmpty ? key : stack[stack.count - 1].rowPath + "/" + key
            stack.append(Frame(rowPath: rowPath))
            openKeys.append(key)
        }
        beginMember(keys[keys.count - 1])
        writeLeaf(value, priority: priorities[full], depth: stack.count)
    }

    /// Closes every open object; returns what was not taken yet.
    mutating func finish() -> String {
        if stack.isEmpty && !wroteLeafAtLocation {
            output += "null"
        }
        while !openKeys.isEmpty { close() }
        if !stack.isEmpty { closeFrame() }
        output += "\n"
        return take()
    }

    private mutating func beginMember(_ key: String) {
        if stack[stack.count - 1].members > 0 { output += "," }
        stack[stack.count - 1].members += 1
        newline(stack.count)
        JSONWriter.writeString(key, to: &output)
        output += ": "
    }

    private mutating func writeLeaf(_ value: String, priority: String?, depth: Int) {
        guard let priority else {
            output += value
            return
        }
        output += "{"
        newline(depth + 1)
        output += "\".value\": " + value + ","
        newline(depth + 1)
        output += "\".priority\": " + priority
        newline(depth)
        output += "}"
    }

    private mutating func close() {
        openKeys.removeLast()
        closeFrame()
    }

    private mutating func closeFrame() {
        let frame = stack.removeLast()
        if let priority = priorities[frame.rowPath] {
            if frame.members > 0 { output += "," }
            newline(stack.count + 1)
            output += "\".priority\": " + priority
        }
        newline(stack.count)
        output += "}"
    }

    private mutating func newline(_ depth: Int) {
        output += "\n" + String(repeating: "  ", count: depth)
    }
}
