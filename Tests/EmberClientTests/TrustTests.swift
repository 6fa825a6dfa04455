import EmberClient
import EmberCore
import EmberInstance
import EmberServer
import EmberStorage
import EmberSync
import EmberTestSupport
import EmberWire
import Foundation
import GRDB
import Testing

/// Issue 18's cases: what is acknowledged is kept, once; what is accepted always reopens.
@Suite("Trust")
struct TrustTests {
    /// A path `depth` keys deep: `/k1/k2/…`.
    static func deepPath(_ depth: Int) -> String {
        (1...depth).map { "k\($0)" }.joined(separator: "/")
    }

    @Test("an increment that overflows to infinity is refused, and the database reopens with what was kept")
    func incrementOverflowIsRefused() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let ember = try openEmber(directory)
            let main = client(ember, "main")
            try ref(main, "keep").setValue("precious")
            let increment = json(#"{".sv":{"increment":1e308}}"#)
            try ref(main, "s").setNode(increment)
            try ember.flush()
            // Not cached here: the client resolves against nothing, the server against 1e308,
            // and refuses.
            var answer: EmberCore.DatabaseError?
            try ref(main, "s").setNode(increment) { answer = $0 }
            try ember.flush()
            #expect(answer?.code == "invalid_value")
            #expect(answer?.path == "s")
            // Cached here: the client's own view already says the sum is not finite, and
            // refuses before anything changes.
            let handle = ref(main, "s").observe(.value) { _, _ in }
            try ember.flush()
            #expect(throws: EmberCore.DatabaseError.self) { try ref(main, "s").setNode(increment) }
            #expect(throws: EmberCore.DatabaseError.self) { try ref(main, "").updateNodes([("s", increment)]) }
            main.removeObserver(handle)
            let down = json(#"{".sv":{"increment":-1.7e308}}"#)
            try ref(main, "n").setNode(down)
            // Its own pending write is what the client knows of /n now.
            #expect(throws: EmberCore.DatabaseError.self) { try ref(main, "n").setNode(down) }
            try ember.flush()
            // The server checks what it resolves, whatever the client thought.
            #expect(throws: EmberCore.DatabaseError.self) { try ember.server.put(increment, at: "s", hash: nil) }
            #expect(throws: EmberCore.DatabaseError.self) { try ember.server.merge([WireChange("s", increment)], at: .root) }
            try ember.flush()
            try ember.close()
        }
        let ember = try openEmber(directory)
        #expect(ember.server.badRows.isEmpty)
        #expect(ember.server.value(at: "keep") == Node(.string("precious")))
        #expect(ember.server.value(at: "s") == Node(.double(1e308)))
        #expect(ember.server.value(at: "n") == Node(.double(-1.7e308)))
    }

    @Test("a priority string over 10 MB is refused on every path: set, .priority, setPriority, onDisconnect")
    func hugePriorityIsRefused() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ember = try openEmber(directory)
        let main = client(ember, "main")
        let huge = String(repeating: "p", count: Limits.maxStringBytes + 1)
        try ref(main, "a").setValue(1)
        try ember.flush()
        #expect(throws: EmberCore.DatabaseError.self) { try ref(main, "a").setValue(1, priority: .string(huge)) }
        #expect(throws: EmberCore.DatabaseError.self) { try ref(main, "a").setPriority(.string(huge)) }
        #expect(throws: EmberCore.DatabaseError.self) { try ref(main, "a").setNode(Node(.int(1), priority: .string(huge))) }
        #expect(throws: EmberCore.DatabaseError.self) { try ember.server.put(Node(.int(1), priority: .string(huge)), at: "a", hash: nil) }
        #expect(throws: EmberCore.DatabaseError.self) {
            try ref(main, "a").onDisconnect().setValue(1, priority: .string(huge))
        }
        let exact = String(repeating: "p", count: Limits.maxStringBytes)
        try ref(main, "b").setValue(1, priority: .string(exact))
        try ember.flush()
        try ember.close()
        let reopened = try openEmber(directory)
        #expect(reopened.server.badRows.isEmpty)
        #expect(reopened.server.value(at: "b").priority == .string(exact))
        #expect(reopened.server.value(at: "a") == Node(.int(1)))
    }

    @Test("a priority on a node 31 keys deep is accepted and reopens")
    func deepPriorityReopens() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = Self.deepPath(Limits.maxDepth)
        do {
            let ember = try openEmber(directory)
            let main = client(ember, "main")
            try ref(main, path).setValue("deep", priority: .number(7))
            try ref(main, "x").setValue("kept")
            try ember.flush()
            try ember.close()
        }
        let ember = try openEmber(directory)
        #expect(ember.server.badRows.isEmpty)
        #expect(ember.server.value(at: Path(unchecked: path)) == Node(.string("deep"), priority: .number(7)))
        #expect(ember.server.value(at: "x") == Node(.string("kept")))
    }

    @Test("bad rows in the server's store are reported with their paths, and the rest of the data opens")
    func badRowsDoNotLockTheDataAway() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let ember = try openEmber(directory)
            try ember.server.put(json(#"{"keep":"precious","s":1,"p":{"q":2}}"#), at: .root, hash: nil)
            try ember.flush()
            try ember.close()
        }
        // What an earlier version could write, or a damaged file holds.
        let queue = try DatabaseQueue(path: Persistence.serverFile(in: directory))
        try queue.write { db in
            try db.execute(sql: "UPDATE leaves SET value = 'inf' WHERE path = 's'")
            try db.execute(sql: "INSERT INTO leaves (path, value) VALUES ('p/.priority', 'true')")
            try db.execute(sql: "INSERT INTO leaves (path, value) VALUES ('big', ?)", arguments: [
                "\"" + String(repeating: "x", count: Limits.maxStringBytes + 1) + "\"",
            ])
        }
        try queue.close()
        let ember = try openEmber(directory)
        // The store is read a location at a time: a location's bad rows are found when it is read.
        #expect(ember.server.badRows.isEmpty)
        #expect(ember.server.value(at: "keep") == Node(.string("precious")))
        #expect(ember.server.badRows.isEmpty)
        #expect(ember.server.value(at: .root) == json(#"{"keep":"precious","p":{"q":2}}"#))
        #expect(ember.server.badRows.map(\.path) == ["/big", "/p/.priority", "/s"])
        #expect(ember.server.badRows.allSatisfy { !$0.reason.isEmpty })
        #expect(ember.notices.contains { $0.code == ErrorCode.badRows })
    }

    @Test("a second instance on a database directory is refused, naming the holder's pid, until the first closes")
    func secondInstanceIsRefused() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try openEmber(directory)
        do {
            _ = try openEmber(directory)
            Issue.record("the second instance opened")
        } catch let error as StoreError {
            #expect(error.code == "database_in_use")
            #expect(error.message.contains("pid \(getpid())"))
            #expect(error.message.contains(directory))
        }
        try first.close()
        let second = try openEmber(directory)
        try second.close()
    }

    @Test("exactly once beyond any window: writes applied but still queued are not applied again after 70,000 other writes")
    func exactlyOnceForgetsNothing() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clientFile = Persistence.clientFile("alice", in: directory)
        // alice queues 50 increments offline; her store as it is then is what a kill after the
        // server applied them (and before she heard) leaves behind.
        do {
            let ember = try openEmber(directory, seed: 1)
            let alice = client(ember, "alice", startOffline: true)
            for _ in 0..<50 { try ref(alice, "counter").setNode(json(#"{".sv":{"increment":1}}"#)) }
            try ember.flush()
            try ember.close()
        }
        let saved = try Data(contentsOf: URL(fileURLWithPath: clientFile))
        do {
            let ember = try openEmber(directory, seed: 2)
            let alice = client(ember, "alice")
            try ember.flush()
            #expect(alice.pendingWriteCount == 0)
            #expect(ember.server.value(at: "counter") == Node(.int(50)))
            // bob makes 70,000 keyed writes meanwhile.
            let bob = client(ember, "bob")
            for round in 0..<70 {
                for index in 0..<1000 { try ref(bob, "bob/\(index)").setValue(.int(Int64(round))) }
                try ember.flush()
            }
            try ember.close()
        }
        try saved.write(to: URL(fileURLWithPath: clientFile))
        try? FileManager.default.removeItem(atPath: clientFile + "-wal")
        try? FileManager.default.removeItem(atPath: clientFile + "-shm")
        let ember = try openEmber(directory, seed: 3)
        let alice = client(ember, "alice")
        #expect(alice.pendingWriteCount == 50)
        try ember.flush()
        #expect(alice.pendingWriteCount == 0)
        #expect(ember.server.value(at: "counter") == Node(.int(50)), "replayed increments were applied again")
        #expect(ember.server.value(at: "bob/999") == Node(.int(69)))
    }

    @Test("a client store truncated to 1,000 bytes is set aside and reported, never silently replaced")
    func corruptClientStoreIsSetAside() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = Persistence.clientFile("main", in: directory)
        do {
            let ember = try openEmber(directory)
            let main = client(ember, "main", startOffline: true)
            try ref(main, "a").setValue(1)
            try ref(main, "b").setValue(2)
            try ember.flush()
            try ember.close()
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try handle.truncate(atOffset: 1000)
        try handle.close()
        try? FileManager.default.removeItem(atPath: file + "-wal")
        try? FileManager.default.removeItem(atPath: file + "-shm")
        let ember = try openEmber(directory)
        let main = client(ember, "main", startOffline: true)
        guard case .unreadableClientStore(let name, let reported, let aside, let reason)? = ember.notices.first else {
            Issue.record("no notice: \(ember.notices)")
            return
        }
        #expect(name.rawValue == "main")
        #expect(reported == file)
        #expect(!reason.isEmpty)
        #expect(ember.notices.allSatisfy { $0.isFailure })
        #expect(ember.persistence.setAsideFiles() == [aside])
        let kept = try FileManager.default.attributesOfItem(atPath: aside)[.size] as? NSNumber
        #expect(kept?.intValue == 1000, "the unreadable file is kept as it was")
        // The new store keeps what is queued from now on.
        try ref(main, "c").setValue(3)
        try ember.flush()
        try ember.close()
        let again = try openEmber(directory)
        let restarted = client(again, "main", startOffline: true)
        #expect(again.notices.isEmpty)
        #expect(restarted.pendingWriteCount == 1)
    }

    @Test("a write refused because the server's disk was full is never applied later, even sent again after a restart")
    func refusedWriteNeverComesBack() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clientFile = Persistence.clientFile("main", in: directory)
        let big = String(repeating: "w", count: 64 * 1024)
        do {
            let ember = try openEmber(directory, seed: 1)
            let main = client(ember, "main", startOffline: true)
            try ref(main, "refused").setValue(.string(big))
            try ember.flush()
            try ember.close()
        }
        // The queue as it is while the write waits: what a removal that failed leaves behind.
        let queued = try Data(contentsOf: URL(fileURLWithPath: clientFile))
        do {
            let ember = try openEmber(directory, seed: 2)
            let store = try #require(ember.server.store)
            // The disk is full: no new page for the server.
            try store.setMaximumSize(0)
            let main = client(ember, "main")
            var answer: EmberCore.DatabaseError?
            main.onStoreError = { _ in }
            let waiting = try ref(main, "later")
            try waiting.setValue(1) { answer = $0 }
            try ember.flush()
            #expect(ember.server.lastStoreError != nil)
            #expect(answer?.code == "storage_error")
            #expect(ember.server.value(at: "refused").isEmpty)
            // Space again: the refusals were kept and go to disk with the next commit.
            try store.setMaximumSize(nil)
            try ember.server.put(Node(.int(1)), at: "other", hash: nil)
            try ember.flush()
            try ember.close()
        }
        try queued.write(to: URL(fileURLWithPath: clientFile))
        try? FileManager.default.removeItem(atPath: clientFile + "-wal")
        try? FileManager.default.removeItem(atPath: clientFile + "-shm")
        let ember = try openEmber(directory, seed: 3)
        let main = client(ember, "main")
        #expect(main.pendingWriteCount == 1)
        try ember.flush()
        #expect(main.pendingWriteCount == 0)
        #expect(ember.server.value(at: "refused").isEmpty, "the refused write was applied after the restart")
        #expect(ember.server.value(at: "other") == Node(.int(1)))
    }

    @Test("a large confirmed write is not copied into the client's cache, and what the cache held there stops claiming to be complete")
    func largeWriteLeavesNoStaleCache() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let ember = try openEmber(directory)
            try ember.server.put(json(#"{"a":1,"b":2}"#), at: "data", hash: nil)
            let main = client(ember, "main")
            let handle = ref(main, "data").observe(.value) { _, _ in }
            try ember.flush()
            main.removeObserver(handle)
            try ember.flush()
            let store = try #require(ember.clientStore(main.name))
            #expect(store.isComplete(.default(at: "data")))
            let children = (0..<2_000).map { (ChildKey(unchecked: "c\($0)"), Node(.int(Int64($0)))) }
            try ref(main, "data").setNode(Node(children: children))
            try ember.flush()
            #expect(ember.server.value(at: "data").childCount == 2_000)
            #expect(!store.isComplete(.default(at: "data")), "the old data would be served as complete")
            #expect(!store.isComplete(.default(at: .root)))
            #expect(try store.cachedNode(at: "data").isEmpty)
            try ember.close()
        }
        let ember = try openEmber(directory)
        let main = client(ember, "main", startOffline: true)
        let store = try #require(ember.clientStore(main.name))
        #expect(!store.isComplete(.default(at: "data")))
        #expect(try store.cachedNode(at: "data").isEmpty)
    }
}
