import EmberClient
import EmberCore
import EmberInstance
import EmberServer
import EmberStorage
import EmberSync
import EmberTestSupport
import Foundation
import Testing

/// An instance on a database directory, in virtual time. Its server keeps `EMBER_CACHE_SIZE`
/// bytes of its store in memory when that is set (scripts/test runs these suites again with
/// 1: everything no listen holds is evicted after each tick).
func openEmber(_ directory: String, durability: Durability = .normal, cacheSize: Int = 10_000_000, seed: UInt64 = 1) throws -> Ember {
    let serverCacheSize = ProcessInfo.processInfo.environment["EMBER_CACHE_SIZE"].flatMap { Int($0) } ?? Server.defaultCacheSize
    return try Ember(
        persistence: .directory(
            directory, try PersistenceSettings(durability: durability, clientCacheSize: cacheSize, serverCacheSize: serverCacheSize)),
        clock: ManualClock(1_700_000_000_000), random: SeededRandom(seed: seed),
        reconnectPolicy: ReconnectPolicy(initialDelay: 1_000, maximumDelay: 30_000, multiplier: 1.3))
}

let dinosaurScores = #"{"bruhathkayosaurus":55,"lambeosaurus":21,"linhenykus":80,"pterodactyl":93,"stegosaurus":5,"triceratops":22}"#

@Suite("Persistence")
struct PersistenceTests {
    let all: Set<EventType> = [.childAdded, .childChanged, .childRemoved, .childMoved, .value]

    @Test("the seeds' offline query scenario across a restart of the instance")
    func dinosaursAcrossARestart() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let ember = try openEmber(directory)
            try ember.server.put(json(dinosaurScores), at: "scores", hash: nil)
            let main = client(ember, "main")
            let log = EventLog()
            log.watch(try ref(main, "scores").query.orderByValue().limitToLast(4), all)
            try ember.flush()
            #expect(log.take() == [
                "child_added triceratops: 22", "child_added bruhathkayosaurus after triceratops: 55",
                "child_added linhenykus after bruhathkayosaurus: 80", "child_added pterodactyl after linhenykus: 93",
                #"value /scores: {"bruhathkayosaurus":55,"linhenykus":80,"pterodactyl":93,"triceratops":22}"#,
            ])
            main.goOffline()
            try ember.flush()
            try ember.close()
        }
        let ember = try openEmber(directory)
        let main = client(ember, "main", startOffline: true)
        let two = EventLog()
        two.watch(try ref(main, "scores").query.orderByValue().limitToLast(2), all)
        try ember.flush()
        #expect(two.take() == ["child_added linhenykus: 80", "child_added pterodactyl after linhenykus: 93"], "no value event")
        let six = EventLog()
        six.watch(try ref(main, "scores").query.orderByValue().limitToLast(6), all)
        try ember.flush()
        #expect(six.take() == [
            "child_added triceratops: 22", "child_added bruhathkayosaurus after triceratops: 55",
            "child_added linhenykus after bruhathkayosaurus: 80", "child_added pterodactyl after linhenykus: 93",
        ])
        main.goOnline()
        try ember.flush()
        #expect(six.take() == [
            "child_added stegosaurus: 5", "child_added lambeosaurus after stegosaurus: 21", "value /scores: \(dinosaurScores)",
        ])
        #expect(two.take() == [#"value /scores: {"linhenykus":80,"pterodactyl":93}"#])
    }

    @Test("a write queued offline survives a restart and reaches the server and other clients, once")
    func queuedWriteSurvivesARestart() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let ember = try openEmber(directory)
            let alice = client(ember, "alice", startOffline: true)
            try ref(alice, "messages/m1").setValue("hello")
            try ref(alice, "counter").setNode(json(#"{".sv":{"increment":1}}"#))
            try ref(alice, "").updateNodes([("a/x", json("1")), ("b", json("true"))])
            try ember.flush()
            #expect(alice.pendingWriteCount == 3)
            try ember.close()
        }
        let ember = try openEmber(directory, seed: 2)
        let alice = client(ember, "alice", startOffline: true)
        #expect(alice.pendingWriteCount == 3)
        #expect(alice.cachedValue(at: "messages/m1") == json(#""hello""#), "the queued write is visible locally after the restart")
        let bob = client(ember, "bob")
        let log = EventLog()
        log.watch(ref(bob, ""), [.value])
        try ember.flush()
        #expect(log.take() == ["value /: null"])
        alice.goOnline()
        try ember.flush()
        #expect(alice.pendingWriteCount == 0)
        #expect(ember.server.value(at: "") == json(#"{"messages":{"m1":"hello"},"counter":1,"a":{"x":1},"b":true}"#))
        #expect(log.take().last == #"value /: {"a":{"x":1},"b":true,"counter":1,"messages":{"m1":"hello"}}"#)
        try ember.close()

        // Nothing is sent again after another restart.
        let again = try openEmber(directory, seed: 3)
        let alice2 = client(again, "alice")
        #expect(alice2.pendingWriteCount == 0)
        try again.flush()
        #expect(again.server.value(at: "counter") == json("1"))
    }

    /// Before, each queued increment was resolved against a layering of every pending write,
    /// and so was each restored one: 20,000 increments took 44 s to queue in a release build.
    @Test("10,000 queued increments, updates and sets each survive a restart and replay whole", .timeLimit(.minutes(5)))
    func longQueueAcrossARestart() throws {
        let count = 10_000
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let increment = json(#"{".sv":{"increment":1}}"#)
        do {
            let ember = try openEmber(directory)
            let alice = client(ember, "alice", startOffline: true)
            for index in 0..<count {
                try ref(alice, "counter").setNode(increment)
                try ref(alice, "totals").updateNodes([("last", Node(.int(Int64(index)))), ("sum", increment)])
                try ref(alice, "items/i\(index)").setValue(.int(Int64(index)))
            }
            #expect(alice.cachedValue(at: "counter") == Node(.int(Int64(count))), "each increment counts the ones before it")
            try ember.flush()
            #expect(alice.pendingWriteCount == 3 * count)
            try ember.close()
        }
        let ember = try openEmber(directory, seed: 2)
        let alice = client(ember, "alice", startOffline: true)
        #expect(alice.pendingWriteCount == 3 * count)
        #expect(alice.cachedValue(at: "counter") == Node(.int(Int64(count))), "the restored increments count each other")
        #expect(alice.cachedValue(at: "totals/last") == Node(.int(Int64(count - 1))))
        #expect(alice.cachedValue(at: "totals/sum") == Node(.int(Int64(count))))
        alice.goOnline()
        try ember.run { alice.pendingWriteCount == 0 }
        try ember.flush()
        #expect(ember.server.value(at: "counter") == Node(.int(Int64(count))))
        #expect(ember.server.value(at: "totals") == json(#"{"last":\#(count - 1),"sum":\#(count)}"#))
        #expect(ember.server.value(at: "items").childCount == count)
        try ember.close()
    }

    @Test("keep-synced pins survive a restart and keep syncing")
    func pinsSurviveARestart() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let ember = try openEmber(directory)
            try ref(client(ember, "main"), "config").keepSynced(true)
            try ember.flush()
            try ember.close()
        }
        let ember = try openEmber(directory)
        let main = client(ember, "main")
        try ember.flush()
        #expect(main.activeListens.map(\.path) == ["config"])
        try ember.server.put(json(#"{"theme":"dark"}"#), at: "config", hash: nil)
        try ember.flush()
        #expect(main.cachedValue(at: "config") == json(#"{"theme":"dark"}"#))
        try ref(main, "config").keepSynced(false)
        try ember.flush()
        try ember.close()
        let third = try openEmber(directory)
        let main3 = client(third, "main")
        try third.flush()
        #expect(main3.activeListens.isEmpty)
    }

    @Test("cached data is read offline after a restart, with a value event for a location that completed")
    func cachedDataOffline() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let ember = try openEmber(directory)
            try ember.server.put(json(#"{"alice":{"name":"Alice",".priority":1},"bob":{"name":"Bob"}}"#), at: "users", hash: nil)
            let main = client(ember, "main")
            let handle = ref(main, "users").query.observe([.value]) { _ in }
            try ember.flush()
            main.removeObserver(handle)
            try ember.flush()
            try ember.close()
        }
        let ember = try openEmber(directory)
        let main = client(ember, "main", startOffline: true)
        let log = EventLog()
        log.watch(ref(main, "users/alice"), [.value])
        log.watch(ref(main, "users"), [.childAdded])
        try ember.flush()
        #expect(log.take() == [
            // Priority order: no priority first.
            #"value /users/alice: {"name":"Alice"}"#, #"child_added bob: {"name":"Bob"}"#, #"child_added alice after bob: {"name":"Alice"}"#,
        ])
    }

    @Test("a confirmed write is readable offline after a restart, without ever listening")
    func confirmedWriteIsCached() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let ember = try openEmber(directory)
            let main = client(ember, "main")
            try ref(main, "profile").setValue(["name": "Ada", "langs": ["swift": true]])
            try ref(main, "").updateNodes([("counters/a", json("1")), ("counters/b", json("2"))])
            try ember.flush()
            #expect(main.pendingWriteCount == 0)
            try ember.close()
        }
        let ember = try openEmber(directory)
        let main = client(ember, "main", startOffline: true)
        let log = EventLog()
        log.watch(ref(main, "profile"), [.value])
        log.watch(ref(main, "counters/b"), [.value])
        try ember.flush()
        #expect(log.take() == [#"value /profile: {"langs":{"swift":true},"name":"Ada"}"#, "value /counters/b: 2"])
    }

    @Test("a cache size outside 1 MB to 100 MB is refused, naming the range")
    func cacheSizeRange() throws {
        #expect(throws: PersistenceSettingsError.self) { try PersistenceSettings(clientCacheSize: 999_999) }
        #expect(throws: PersistenceSettingsError.self) { try PersistenceSettings(clientCacheSize: 100_000_001) }
        let error = try #require(throws: PersistenceSettingsError.self) { try PersistenceSettings(clientCacheSize: 0) }
        #expect(error.message.contains("between 1 MB and 100 MB"))
        #expect(try PersistenceSettings(clientCacheSize: 1_000_000).clientCacheSize == 1_000_000)
        #expect(try PersistenceSettings(clientCacheSize: 100_000_000).clientCacheSize == 100_000_000)
    }

    @Test("a client whose store cannot be opened is refused by name, or runs in memory with the reason")
    func unopenableClientStore() throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ember = try openEmber(directory)
        // A directory where the client's file should be.
        try FileManager.default.createDirectory(atPath: directory + "/clients/broken.sqlite", withIntermediateDirectories: true)
        let error = try #require(throws: DatabaseError.self) { try ember.client(named: "broken") }
        #expect(error.code == "storage_error")
        #expect(error.message.contains("clients/broken.sqlite"))
        let fallback = ember.client(try ClientName(validating: "broken"))
        #expect(!fallback.isPersistent)
        #expect(ember.clientStore(fallback.name) == nil)
        #expect(fallback.lastStoreError?.message.contains("clients/broken.sqlite") == true)
    }

    @Test("a database directory that cannot be created is reported by name")
    func uncreatableDirectory() throws {
        let error = try #require(throws: StoreError.self) {
            try Ember(persistence: .directory("/proc/ember-cannot-be-here", .standard))
        }
        #expect(error.message.contains("/proc/ember-cannot-be-here"))
    }
}
