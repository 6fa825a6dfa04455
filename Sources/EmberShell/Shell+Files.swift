import EmberEngine
import EmberClient
import EmberCore
import EmberLua
import EmberQL
import Foundation

/// `export` and `import`: the Firebase export format (`.value`/`.priority`) to and from files.
extension Shell {
    /// Imports of files at least this large say on a terminal what they are doing.
    static let largeImportBytes = 1 << 20

    func export(_ expression: PathExpression, to file: Word?) throws(ShellError) -> CommandResult {
        let path = try resolve(expression)
        let snapshot = try read(database.reference(path).query)
        let value = snapshot.exportValue
        guard let file else { return .value(value) }
        let text = value.serialized(pretty: true) + "\n"
        let target = FileAccess.expandingHome(file.text)
        do {
            try FileAccess.write(text, to: target)
        } catch {
            throw .command(error.code, error.message, at: file.position)
        }
        return .report(
            text: "exported \(path) to \(target) (\(Self.bytes(text.utf8.count)))",
            json: .object([("ok", .bool(true)), ("file", .string(target)), ("bytes", .int(Int64(text.utf8.count)))]))
    }

    /// Writes the JSON of `file` at `expression` as one write: the server applies all of it in
    /// one transaction or none of it (a crash or Ctrl-C never leaves half an import, and the
    /// location's old data stays until the whole new data replaces it).
    ///
    /// Ctrl-C before the write is made (while reading or parsing the file) imports nothing;
    /// after it, the write is in the client's queue and lands whole, and only the wait ends.
    func importFile(_ given: Word, to expression: PathExpression) throws(ShellError) -> CommandResult {
        let path = try resolve(expression)
        let file = Word(FileAccess.expandingHome(given.text), at: given.position)
        let text: String
        let fileSize = (try? FileManager.default.attributesOfItem(atPath: file.text))?[.size] as? Int ?? 0
        let large = fileSize >= Self.largeImportBytes
        if large { drawStatus("importing \(path): reading \(file.text)") }
        defer { if large { clearStatus() } }
        do {
            text = try FileAccess.readText(file.text)
        } catch {
            throw .command(error.code, error.message, at: file.position)
        }
        try checkImportInterrupted()
        if large { drawStatus("importing \(path): parsing \(Self.bytes(text.utf8.count))") }
        let node: Node
        do {
            node = try Node(jsonText: text, at: path)
        } catch {
            throw .command(error.code, "\(file.text): \(error.message)", at: file.position)
        }
        // The last moment at which Ctrl-C leaves nothing written.
        try checkImportInterrupted()
        if large { drawStatus("importing \(path): writing \(node.childCount) children") }
        let reference = database.reference(path)
        let status = try performWrite(
            at: file.position, on: database,
            interrupted: "stopped waiting; the import was made as one write, which stays queued and lands whole"
        ) { (done) throws(DatabaseError) in try reference.setNode(node, completion: done) }
        let count = node.childCount
        let detail = "imported \(Self.bytes(text.utf8.count)) into \(path) (\(count) \(count == 1 ? "child" : "children"))"
        return .write(WriteReport(
            status, detail: status == .acknowledged ? detail : detail + ";", fields: [("children", .int(Int64(count)))]))
    }

    /// Ends an import that Ctrl-C interrupted before its write was made: nothing is written.
    private func checkImportInterrupted() throws(ShellError) {
        guard engine.isInterruptPending else { return }
        engine.clearInterrupt()
        throw .interrupted("nothing was imported")
    }

    /// Draws `status` on stderr, over the previous one, when stderr is a terminal.
    func drawStatus(_ status: String) {
        guard showsProgress && !runningForScript else { return }
        output.writeError("\r\u{1B}[K" + status)
    }

    /// Erases what ``drawStatus(_:)`` drew.
    func clearStatus() {
        guard showsProgress && !runningForScript else { return }
        output.writeError("\r\u{1B}[K")
    }
}
