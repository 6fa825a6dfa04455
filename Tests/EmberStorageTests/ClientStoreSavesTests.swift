import EmberCore
import EmberStorage
import EmberTestSupport
import Foundation
import GRDB
import Testing

/// A queued write's save is called off when the write is answered, or the server's store holds
/// it, before the commit: its row is never written, and its removal writes nothing.
@Suite struct ClientStoreSavesTests {
    /// A fresh store file in a temporary directory, removed by `body`'s end.
    private func withStore(_ durability: Durability, _ body: (String) throws -> Void) throws {
        let directory = try TemporaryDirectory.make("ember-saves")
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory.appendingPathComponent("client.sqlite").path)
    }

    /// Every byte of the store's file and its WAL.
    private func bytes(of file: String) -> Data {
        var data = Data()
        for suffix in ["", "-wal"] { data.append((try? Data(contentsOf: URL(fileURLWithPath: file + suffix))) ?? Data()) }
        return data
    }

    @Test("a save the server's store holds is never written, its removal writes nothing, and the other saves are kept")
    func aSaveKeptElsewhereIsNeverWritten() throws {
        try withStore(.full) { file in
            let store = try ClientStore(at: .file(file), durability: .full, now: 0)
            let kept = store.saveWrite(PersistedWrite(key: "c.s#1", path: "a", change: .put(json(#""answered-in-its-tick""#))))
            let queued = store.saveWrite(PersistedWrite(key: "c.s#2", path: "b", change: .put(json(#""still-queued""#))))
            store.forgetSaves { $0 == "c.s#1" }
            #expect(store.unstoredWriteRows == [queued])
            try store.commit()
            store.removeWrite(row: kept)
            #expect(!store.hasChanges, "removing a row never written changes nothing")
            let onDisk = bytes(of: file)
            #expect(onDisk.range(of: Data("answered-in-its-tick".utf8)) == nil, "the called-off save never reached the file")
            #expect(onDisk.range(of: Data("still-queued".utf8)) != nil)
            try store.close()
            let reopened = try ClientStore(at: .file(file), durability: .full, now: 0)
            #expect(try reopened.loadQueue().map(\.write.key) == ["c.s#2"])
            try reopened.close()
        }
    }

    @Test("a write saved and answered before the commit is never written")
    func aSaveAnsweredBeforeItsCommitIsNeverWritten() throws {
        try withStore(.normal) { file in
            let store = try ClientStore(at: .file(file), durability: .normal, now: 0)
            let row = store.saveWrite(PersistedWrite(key: "c.s#1", path: "a", change: .put(json(#""refused-at-once""#))))
            store.removeWrite(row: row)
            #expect(!store.hasChanges)
            #expect(store.unstoredWriteRows.isEmpty)
            try store.commit()
            #expect(bytes(of: file).range(of: Data("refused-at-once".utf8)) == nil)
            try store.close()
            #expect(try ClientStore(at: .file(file), durability: .normal, now: 0).loadQueue().isEmpty)
        }
    }

    @Test("in full mode answered writes leave the queue without an fsync until the removals are synced; a save is always fsynced")
    func removalsAreSyncedBeforeTheServerForgets() throws {
        try withStore(.full) { file in
            let store = try ClientStore(at: .file(file), durability: .full, now: 0)
            let first = store.saveWrite(PersistedWrite(key: "c.s#1", path: "a", change: .put(json("1"))))
            try store.commit()
            #expect(!store.hasUnsyncedRemovals)
            store.removeWrite(row: first)
            try store.commit()
            #expect(store.hasUnsyncedRemovals, "a removal alone is committed without an fsync")
            try store.syncRemovals()
            #expect(!store.hasUnsyncedRemovals)
            let second = store.saveWrite(PersistedWrite(key: "c.s#2", path: "b", change: .put(json("2"))))
            try store.commit()
            store.removeWrite(row: second)
            store.saveWrite(PersistedWrite(key: "c.s#3", path: "c", change: .put(json("3"))))
            try store.commit()
            #expect(!store.hasUnsyncedRemovals, "a commit that stores a write is fsynced, and the removals with it")
            try store.close()
            #expect(try ClientStore(at: .file(file), durability: .full, now: 0).loadQueue().map(\.write.key) == ["c.s#3"])
        }
    }
}
