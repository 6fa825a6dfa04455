import EmberCore
import EmberStorage
import EmberTestSupport
import Foundation
import Testing

/// On a full disk a client's commit fails, but the writes the server answered still leave its
/// queue (deleting needs no new space), so that a restart never sends a refused write again.
@Suite struct ClientStoreRemovalsTests {
    @Test func answeredWritesLeaveTheQueueWhenTheCommitCannot() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ember-removals-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("client.sqlite").path
        let store = try ClientStore(at: .file(file), durability: .normal, now: 0)
        let first = store.saveWrite(PersistedWrite(key: "c.s#1", path: "a", change: .put(json("1"))))
        store.saveWrite(PersistedWrite(key: "c.s#2", path: "b", change: .put(json("2"))))
        try store.commit()
        // The disk is full: a commit that needs a page fails.
        try store.setMaximumSize(0)
        store.removeWrite(row: first)
        store.overwriteServerCache(json(#""\#(String(repeating: "x", count: 100_000))""#), at: "big")
        let third = store.saveWrite(PersistedWrite(key: "c.s#3", path: "c", change: .put(json(#""\#(String(repeating: "y", count: 100_000))""#))))
        store.removeWrite(row: third)
        #expect(throws: StoreError.self) { try store.commit() }
        try store.commitRemovals()
        try store.setMaximumSize(nil)
        try store.close()
        let reopened = try ClientStore(at: .file(file), durability: .normal, now: 0)
        #expect(try reopened.loadQueue().map(\.write).map(\.key) == ["c.s#2"])
        #expect(try reopened.cachedNode(at: "big") == json(#""\#(String(repeating: "x", count: 100_000))""#), "the rest committed later")
    }
}
