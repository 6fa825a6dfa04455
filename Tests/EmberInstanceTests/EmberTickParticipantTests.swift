import EmberClient
import EmberCore
import EmberInstance
import EmberServer
import EmberStorage
import EmberTestSupport
import Foundation
import GRDB
import Testing

/// The end of a tick on a database directory: the server commits first, and a connected
/// client's write it answered in the tick never enters the client's queue on disk.
@Suite("The end of a tick")
struct EmberTickParticipantTests {
    func open(_ directory: String) throws -> Ember {
        try Ember(
            persistence: .directory(directory, try PersistenceSettings(durability: .full, clientCacheSize: 10_000_000)),
            clock: ManualClock(1_700_000_000_000), random: SeededRandom(seed: 1))
    }

    /// The writer names of a client's write keys start with its identity and a dot. Read with
    /// no process open on `directory`: an open store holds its file exclusively.
    func writeKeyPrefix(of client: String, in directory: String) throws -> Data {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: Persistence.clientFile(client, in: directory), configuration: configuration)
        let identity = try queue.read { try String.fetchOne($0, sql: "SELECT value FROM meta WHERE key = 'identity'") }
        try queue.close()
        return Data(((identity ?? "?") + ".").utf8)
    }

    /// Every byte of a client's store: the file and its WAL.
    func storeBytes(of client: String, in directory: String) -> Data {
        var data = Data()
        for suffix in ["", "-wal"] {
            data.append((try? Data(contentsOf: URL(fileURLWithPath: Persistence.clientFile(client, in: directory) + suffix))) ?? Data())
        }
        return data
    }

    /// Once `writer` is connected, sets `online/1` … `online/3`, each acknowledged.
    func writeOnline(_ writer: EmberClient.Database, in ember: Ember) throws {
        try ember.flush()
        var answers: [String] = []
        for index in 1...3 {
            try writer.reference("online/\(index)").setValue(.int(Int64(index))) { answers.append($0.map { "\($0)" } ?? "ok") }
        }
        try ember.flush()
        #expect(answers == ["ok", "ok", "ok"])
    }

    @Test("a connected client's acknowledged write is kept by the server's commit alone; a write made offline is queued on disk and sent after a restart")
    func answeredWritesNeverEnterTheQueue() throws {
        let directory = try TemporaryDirectory.make("ember-tick").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            // The client's store is made, with its lasting identity.
            let ember = try open(directory)
            _ = try ember.client(named: "writer")
            try ember.close()
        }
        let prefix = try writeKeyPrefix(of: "writer", in: directory)
        do {
            let ember = try open(directory)
            let writer = try ember.client(named: "writer")
            // Connected first: a write made before the handshake is queued (and stored) until
            // it can be sent.
            try writeOnline(writer, in: ember)
            var answers: [String] = []
            #expect(storeBytes(of: "writer", in: directory).range(of: prefix) == nil, "no write key was ever written to the queue")
            writer.goOffline()
            try writer.reference("offline").setValue(.string("queued")) { answers.append($0.map { "\($0)" } ?? "ok") }
            try ember.flush()
            #expect(storeBytes(of: "writer", in: directory).range(of: prefix) != nil, "the offline write is in the queue")
            try ember.close()
        }
        let ember = try open(directory)
        let writer = try ember.client(named: "writer", startOffline: true)
        #expect(writer.pendingWriteCount == 1)
        writer.goOnline()
        try ember.flush()
        #expect(writer.pendingWriteCount == 0)
        #expect(ember.server.value(at: "offline") == json(#""queued""#))
        #expect(ember.server.value(at: "online") == json(#"{"1":1,"2":2,"3":3}"#))
        try ember.close()
    }

    /// Before, the scheduled commit skipped a client with a write in flight (its save would
    /// be written only to be called off at the end of the tick) and nothing took it up again:
    /// a client whose completions send its next writes always has writes in flight when the
    /// timer fires, so its cache changes piled up in memory until it stopped writing.
    @Test(
        "a client that writes without pause, a window of writes always in flight, has its deferred store changes committed every deferral period, not held in memory until it stops"
    )
    func deferredCommitsKeepUpWithAStreamOfWrites() throws {
        let directory = try TemporaryDirectory.make("ember-stream").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = ManualClock(1_700_000_000_000)
        let ember = try Ember(
            persistence: .directory(directory, try PersistenceSettings(durability: .normal, clientCacheSize: 10_000_000)),
            clock: clock, random: SeededRandom(seed: 1))
        let writer = try ember.client(named: "writer")
        try ember.flush()
        let total = 2_000, window = 10
        var sent = 0, answered = 0, mostWaiting = 0
        var failures: [String] = []
        func send() {
            let index = sent
            sent += 1
            do {
                try writer.reference("stream/k\(index % 100)").setValue(.int(Int64(index))) { error in
                    if let error { failures.append("\(error)") }
                    answered += 1
                    // A millisecond a write: the deferral period passes while writes are in flight.
                    clock.advance(by: 1)
                    mostWaiting = max(mostWaiting, writer.uncommittedStoreChangeCount)
                    if sent < total { send() }
                }
            } catch {
                failures.append("\(error)")
            }
        }
        for _ in 0..<window { send() }
        try ember.run { answered == total }
        #expect(failures.isEmpty)
        // A deferral period is 20 writes here; each leaves a cached value and its save.
        #expect(mostWaiting < 200, "at most about two deferral periods' changes wait in memory: \(mostWaiting)")
        ember.commitClientStores()
        try ember.close()
        let reopened = try open(directory)
        let reader = try reopened.client(named: "writer", startOffline: true)
        var cached: Node?
        try reader.reference("stream/k99").query.observeOnce(.value) { result in cached = try? result.get().0.node }
        try reopened.flush()
        #expect(cached == json("1999"), "the last value is in the client's cache after a restart, offline")
        try reopened.close()
    }

    /// The writers whose watermarks the server's store holds, and each watermark, read through
    /// the store's own connection (an open store holds its file exclusively).
    func storedWatermarks(in ember: Ember) throws -> [String: Int64] {
        let store = try #require(ember.server.store)
        return Dictionary(uniqueKeysWithValues: try store.loadLedger().map { ($0.writer, $0.watermark) })
    }

    @Test("a connected client's answered writes leave no watermark in the server's store; once its store has held a queued write, its writer's watermark is kept, and that write replayed after a crash is answered from it, not applied twice")
    func watermarksOnlyForWritersThatCanReplay() throws {
        let directory = try TemporaryDirectory.make("ember-watermark").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let increment = json(#"{".sv":{"increment":1}}"#)
        let clientFile = Persistence.clientFile("writer", in: directory)
        let aside = directory + "/aside"
        try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true)
        do {
            let ember = try open(directory)
            let writer = try ember.client(named: "writer")
            try writeOnline(writer, in: ember)
            var answers: [String] = []
            #expect(try storedWatermarks(in: ember).isEmpty, "nothing of the writer can be replayed: no watermark kept")
            // Offline: the increment is queued in the client's store, from which a restart
            // could send it again.
            writer.goOffline()
            try writer.reference("count").setNode(increment) { answers.append($0.map { "\($0)" } ?? "ok") }
            try ember.flush()
            ember.commitClientStores()
            // The client's store as a crash right after the increment's answer would leave it:
            // the increment still queued (its removal never reached the disk).
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: clientFile + suffix) {
                try FileManager.default.copyItem(atPath: clientFile + suffix, toPath: aside + "/client" + suffix)
            }
            writer.goOnline()
            try ember.flush()
            #expect(answers == ["ok"])
            #expect(ember.server.value(at: "count") == json("1"))
            let kept = try storedWatermarks(in: ember)
            #expect(kept.count == 1 && kept.values.first == 4, "the writer's watermark is kept once a write of it was queued: \(kept)")
            try ember.close()
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: clientFile + suffix) }
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: aside + "/client" + suffix) {
            try FileManager.default.copyItem(atPath: aside + "/client" + suffix, toPath: clientFile + suffix)
        }
        let ember = try open(directory)
        let writer = try ember.client(named: "writer", startOffline: true)
        #expect(writer.pendingWriteCount == 1, "the increment is back in the queue")
        writer.goOnline()
        try ember.flush()
        #expect(writer.pendingWriteCount == 0)
        #expect(ember.server.value(at: "count") == json("1"), "the replayed increment was answered from the ledger, not applied again")
        try ember.close()
    }

    @Test("a client's cache changes wait for one scheduled commit; a write made offline is committed at the end of its tick")
    func cacheChangesWaitForTheScheduledCommit() throws {
        let directory = try TemporaryDirectory.make("ember-tick").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ember = try open(directory)
        let writer = try ember.client(named: "writer")
        try ember.flush()
        try writer.reference("a").setValue(.int(1)) { _ in }
        try ember.flush()
        #expect(writer.hasUncommittedChanges, "the confirmed write waits to be cached")
        #expect(!writer.hasUrgentStoreChanges)
        #expect(!ember.hasTickWork, "nothing holds the tick up: a commit is scheduled")
        try ember.advance(by: Ember.deferredStoreCommitDelay)
        #expect(!writer.hasUncommittedChanges, "committed by the scheduled commit")
        writer.goOffline()
        try writer.reference("b").setValue(.int(2)) { _ in }
        try ember.flush()
        #expect(!writer.hasUrgentStoreChanges, "the queued write was committed at the end of its tick")
        try ember.close()
    }
}
