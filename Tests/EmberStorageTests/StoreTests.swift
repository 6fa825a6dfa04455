import EmberCore
import EmberStorage
import Foundation
import Testing

/// The SQLite store: schema migration, writes, reads, and surviving a reopen.
@Suite struct StoreTests {
    /// A fresh directory, removed by the caller.
    private func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ember-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func writesReopensAndReadsBack() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("server.sqlite").path

        let store = try Store(at: .file(file))
        try store.write(json: #"{"name":"Alice","age":31}"#, at: "/users/alice")
        try store.write(json: "5", at: "/scores/stego")
        try store.close()
        #expect(FileManager.default.fileExists(atPath: file))

        let reopened = try Store(at: .file(file))
        #expect(try reopened.read(at: "/users/alice") == #"{"name":"Alice","age":31}"#)
        #expect(try reopened.read(at: "/scores/stego") == "5")
        #expect(try reopened.read(at: "/users/bob") == nil)
        // the migration ran once, when the file was created
        #expect(try reopened.appliedMigrations() == ["v1-nodes"])
    }

    @Test func writeReplacesAndRemoveDeletes() throws {
        let store = try Store(at: .memory)
        try store.write(json: "1", at: "/counter")
        try store.write(json: "2", at: "/counter")
        #expect(try store.read(at: "/counter") == "2")
        try store.remove(at: "/counter")
        #expect(try store.read(at: "/counter") == nil)
        try store.remove(at: "/counter")  // removing nothing is fine
    }

    @Test func pathsAreStoredInTheirNormalForm() throws {
        let store = try Store(at: .memory)
        try store.write(json: "true", at: Path(unchecked: "users//alice/"))
        #expect(try store.read(at: "/users/alice") == "true")
    }

    @Test func memoryStoresAreSeparate() throws {
        let first = try Store(at: .memory)
        let second = try Store(at: .memory)
        try first.write(json: "1", at: "/a")
        #expect(try second.read(at: "/a") == nil)
    }

    @Test func openingInAMissingDirectoryNamesThePath() throws {
        let error = try #require(throws: StoreError.self) {
            try Store(at: .file("/nonexistent-ember-dir/server.sqlite"))
        }
        #expect(error.message == "cannot open the store at /nonexistent-ember-dir/server.sqlite: unable to open database file")
    }

    @Test func aFileThatIsNotADatabaseIsRefused() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("notes.txt")
        try String(repeating: "not a database\n", count: 100).write(to: file, atomically: true, encoding: .utf8)
        let error = try #require(throws: StoreError.self) { try Store(at: .file(file.path)) }
        #expect(error.message.hasPrefix("cannot "))
        #expect(error.message.contains(file.path))
        #expect(error.message.hasSuffix("file is not a database"))
    }
}
