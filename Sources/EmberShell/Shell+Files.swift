import EmberClient
import EmberCore
import EmberQL
import Foundation

/// `export` and `import`: the Firebase export format (`.value`/`.priority`) to and from files.
extension Shell {
    /// How many children a large import writes per batch.
    static let importBatchSize = 1000
    /// Imports of files at least this large, or with at least a batch of top-level children,
    /// go in batches with a progress bar.
    static let largeImportBytes = 1 << 20

    func export(_ expression: PathExpression, to file: Word?) throws(ShellError) {
        let path = try resolve(expression)
        let snapshot = try read(database.reference(path).query)
        let value = snapshot.exportValue
        guard let file else {
            if isJSON { printJSON(value) } else { print(formatter.pretty(value)) }
            return
        }
        let text = value.serialized(pretty: true) + "\n"
        do {
            try FileAccess.write(text, to: file.text)
        } catch {
            throw .command(error.code, error.message, at: file.position)
        }
        if isJSON {
            printJSON(.object([("ok", .bool(true)), ("file", .string(file.text)), ("bytes", .int(Int64(text.utf8.count)))]))
        } else {
            print("exported \(path) to \(file.text) (\(Self.bytes(text.utf8.count)))")
        }
    }

    func importFile(_ file: Word, to expression: PathExpression) throws(ShellError) {
        let path = try resolve(expression)
        let text: String
        do {
            text = try FileAccess.readText(file.text)
        } catch {
            throw .command(error.code, error.message, at: file.position)
        }
        let node: Node
        do {
            node = try Node(jsonText: text, at: path)
        } catch {
            throw .command(error.code, "\(file.text): \(error.message)", at: file.position)
        }
        let reference = database.reference(path)
        let children = Array(node.children)
        let large = text.utf8.count >= Self.largeImportBytes || children.count > Self.importBatchSize
        guard large, !node.isLeaf, node.priority == nil else {
            let report = try performWrite(at: file.position, on: database) { (done) throws(DatabaseError) in
                try reference.setNode(node, completion: done)
            }
            printImport(report, path: path, count: node.childCount, bytes: text.utf8.count)
            return
        }
        // in batches: first the location is cleared, then children are written a batch at a
        // time, each waited for, with a progress bar on a terminal
        var report = try performWrite(at: file.position, on: database) { (done) throws(DatabaseError) in
            try reference.removeValue(completion: done)
        }
        var written = 0
        while written < children.count {
            let batch = children[written..<min(written + Self.importBatchSize, children.count)]
            let changes = batch.map { (Path(keys: [$0.key]), $0.node) }
            let batchReport = try performWrite(at: file.position, on: database) { (done) throws(DatabaseError) in
                try reference.updateNodes(changes, completion: done)
            }
            if batchReport == .queued { report = .queued }
            written += batch.count
            drawProgress(written, of: children.count, label: "importing \(path)")
        }
        if showsProgress { output.writeError("\r\u{1B}[K") }
        printImport(report, path: path, count: children.count, bytes: text.utf8.count)
    }

    private func printImport(_ report: WriteReport, path: Path, count: Int, bytes: Int) {
        let detail = "imported \(Self.bytes(bytes)) into \(path) (\(count) \(count == 1 ? "child" : "children"))"
        printWrite(report, extra: [("children", .int(Int64(count)))], detail: report == .acknowledged ? detail : detail + ";")
    }

    /// Draws `label [#####     ] 45% (450/1000)` on stderr, over itself, when stderr is a terminal.
    func drawProgress(_ done: Int, of total: Int, label: String) {
        guard showsProgress, total > 0 else { return }
        let width = 30
        let filled = done * width / total
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        output.writeError("\r\(label) [\(bar)] \(done * 100 / total)% (\(done)/\(total))")
    }
}
