import EmberEngine
import EmberClient
import EmberCore
import EmberInstance
import EmberLua
import EmberServer
import EmberQL
import Foundation

/// `export` and `import`: the Firebase export format (`.value`/`.priority`) to and from files.
extension Shell {
    /// Imports of files at least this large say on a terminal what they are doing.
    static let largeImportBytes = 1 << 20

    /// Into a file, with the server embedded and keeping a store, the client connected with no
    /// write pending, and no rule keeping the client from reading: written from the store's
    /// rows as they are read (``exportStreaming(_:to:from:)``), not built in memory.
    func export(_ expression: PathExpression, to file: Word?) throws(ShellError) -> CommandResult {
        let path = try resolve(expression)
        if let file, database.pendingWriteCount == 0, let server = storeServer(),
            server.exportsStreaming(at: path, for: database.name)
        {
            return try exportStreaming(path, to: file, from: server)
        }
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

    /// Writes the data at `path` into `file` from the server's store, a chunk at a time.
    private func exportStreaming(_ path: Path, to file: Word, from server: ServerAdministration) throws(ShellError) -> CommandResult {
        let target = FileAccess.expandingHome(file.text)
        var bytes = 0
        do {
            try FileAccess.write(to: target) { emit in bytes = try server.exportStreaming(at: path, to: emit) }
        } catch let error as FileAccessError {
            throw .command(error.code, error.message, at: file.position)
        } catch let error as DatabaseError {
            throw .command(error.code, error.message, at: file.position)
        } catch {
            throw .command(ErrorCode.ioError, "\(error)", at: file.position)
        }
        return .report(
            text: "exported \(path) to \(target) (\(Self.bytes(bytes)))",
            json: .object([("ok", .bool(true)), ("file", .string(target)), ("bytes", .int(Int64(bytes)))]))
    }

    /// Writes the JSON of `file` at `expression` as one write: the server applies all of it in
    /// one transaction or none of it (a crash or Ctrl-C never leaves half an import, and the
    /// location's old data stays until the whole new data replaces it).
    ///
    /// Ctrl-C before the write is made (while reading or parsing the file) imports nothing;
    /// after it, the write is in the client's queue and lands whole, and only the wait ends.
    ///
    /// With the server embedded and keeping a store, the client connected, and rules that
    /// grant the write whatever it holds, the file is streamed into the store instead
    /// (``importStreaming(_:at:into:)``): in bounded memory, still all or nothing.
    func importFile(_ given: Word, to expression: PathExpression) throws(ShellError) -> CommandResult {
        let path = try resolve(expression)
        let file = Word(FileAccess.expandingHome(given.text), at: given.position)
        if let server = storeServer(), server.importsStreaming(at: path, for: database.name) {
            if let result = try importStreaming(file, at: path, into: server) { return result }
        }
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

    /// The embedded server's administration, while the current client is connected: what an
    /// import or export may stream through, in the server's store.
    private func storeServer() -> ServerAdministration? {
        guard let server = ember.administration, database.connectionState.isConnected else { return nil }
        return server
    }

    /// Streams `file` into the server's store at `path` (``ServerAdministration/importStreaming(at:producing:checkpoint:)``),
    /// drawing the share read on a terminal. Ctrl-C, bad JSON or data a write would refuse
    /// leave the old data.
    /// - Returns: the report, or `nil` when the file needs a whole import (`.value` or `.sv`
    ///   on its large objects: ``ExportReader/Unsupported``); nothing was written then.
    private func importStreaming(_ file: Word, at path: Path, into server: ServerAdministration) throws(ShellError) -> CommandResult? {
        let source: ExportFile
        do {
            source = try ExportFile(path: file.text)
        } catch {
            throw .command(error.code, error.message, at: file.position)
        }
        let large = source.byteCount >= Self.largeImportBytes
        defer { if large { clearStatus() } }
        var shown = -1
        let rows: Int
        do {
            rows = try server.importStreaming(at: path, producing: { deliver in
                var reader = ExportReader(source)
                try reader.read(at: path, deliver)
            }, checkpoint: { offset in
                if engine.isInterruptPending {
                    engine.clearInterrupt()
                    throw ShellError.interrupted("nothing was imported")
                }
                guard large, source.byteCount > 0 else { return }
                let percent = offset * 100 / source.byteCount
                guard percent != shown else { return }
                shown = percent
                drawStatus("importing \(path): \(Self.progressBar(percent)) \(percent)% of \(Self.bytes(source.byteCount))")
            })
        } catch is ExportReader.Unsupported {
            return nil
        } catch let error as ShellError {
            throw error
        } catch let error as DatabaseError {
            throw .command(error.code, "\(file.text): \(error.message)", at: file.position)
        } catch {
            throw .command(ErrorCode.storageError, "\(file.text): \(error)", at: file.position)
        }
        let detail = "imported \(Self.bytes(source.byteCount)) into \(path) (\(rows) \(rows == 1 ? "row" : "rows"), streamed into the store)"
        return .write(WriteReport(.acknowledged, detail: detail, fields: [("rows", .int(Int64(rows))), ("streamed", .bool(true))]))
    }

    /// A bar of 20 cells, `percent` of them filled.
    static func progressBar(_ percent: Int) -> String {
        let filled = max(0, min(20, percent / 5))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 20 - filled) + "]"
    }

    /// Ends an import that Ctrl-C interrupted before its write was made: nothing is written.
    private func checkImportInterrupted() throws(ShellError) {
        guard engine.isInterruptPending else { return }
        engine.clearInterrupt()
        throw .interrupted("nothing was imported")
    }

    /// Draws `status` on stderr, over the previous one, when stderr is a terminal.
    func drawStatus(_ status: String) {
        guard state.showsProgress && !state.runningForScript else { return }
        output.writeError("\r\u{1B}[K" + status)
    }

    /// Erases what ``drawStatus(_:)`` drew.
    func clearStatus() {
        guard state.showsProgress && !state.runningForScript else { return }
        output.writeError("\r\u{1B}[K")
    }
}
