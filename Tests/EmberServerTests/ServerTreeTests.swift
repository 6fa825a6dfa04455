import EmberCore
import EmberInstance
import EmberEngine
import EmberRules
@testable import EmberServer
import EmberStorage
import EmberTestSupport
import EmberWire
import Foundation
import GRDB
import Testing

/// The server's tree paged from its store: opening reads nothing, each operation reads the
/// locations it touches, and what is in memory (loaded, written, evicted) always reads back
/// exactly as a tree kept whole would.
@Suite("Server tree")
struct ServerTreeTests {
    let clock = ManualClock(1_700_000_000_000)

    private func open(_ file: String, rules: Ruleset? = nil, cacheSize: Int = Server.defaultCacheSize) throws -> Server {
        try Server(clock: clock, rules: rules, store: try ServerStore(at: .file(file), durability: .normal), cacheSize: cacheSize)
    }

    /// Runs `body` with the path of a store file holding `data` (committed and closed) in a
    /// temporary directory, removed after.
    private func withStore(holding data: String, _ body: (_ file: String) throws -> Void) throws {
        let directory = try TemporaryDirectory.make("ember-tree").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        try seed(file, data)
        try body(file)
    }

    /// A store at `file` holding `data`, committed and closed.
    private func seed(_ file: String, _ data: String) throws {
        let server = try open(file)
        try server.put(json(data), at: .root, hash: nil)
        try server.close()
    }

    private func token(_ uid: String) throws -> String {
        try AuthToken.unsigned(claims: .object([("uid", .string(uid))]), issuedAt: clock.now(), lifetime: 3_600_000).text
    }

    private func rows(_ file: String) throws -> [String] {
        let queue = try DatabaseQueue(path: file)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT path, value FROM leaves ORDER BY path").map { "\($0[0] as String)=\($0[1] as String)" }
        }
    }

    @Test("opening reads no data; a read loads only its location")
    func openingReadsNothing() throws {
        let directory = try TemporaryDirectory.make("ember-tree").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        try seed(file, #"{"users":{"u1":{"name":"Ada","age":36},"u2":{"name":"Alan"}},"rooms":{"r":{"topic":"x"}}}"#)
        // Read before the server opens the file: an open store holds it exclusively.
        let usersBytes = try rows(file).filter { $0.hasPrefix("users/") }.reduce(0) { $0 + $1.utf8.count - 1 }
        let server = try open(file)
        #expect(server.cacheUse.loads == 0 && server.cacheUse.bytes == 0 && server.cacheUse.regions == 0)
        #expect(server.value(at: "users/u1/name") == Node(.string("Ada")))
        #expect(server.cacheUse.loads == 1 && server.cacheUse.regions == 1)
        #expect(server.cacheUse.bytes == "users/u1/name".utf8.count + #""Ada""#.utf8.count)
        // Read again: from memory.
        #expect(server.value(at: "users/u1/name") == Node(.string("Ada")))
        #expect(server.cacheUse.loads == 1)
        // A location above absorbs it: one region.
        #expect(server.value(at: "users") == json(#"{"u1":{"name":"Ada","age":36},"u2":{"name":"Alan"}}"#))
        #expect(server.cacheUse.loads == 2 && server.cacheUse.regions == 1)
        // Its rows were read except those of the region below, held already: counted once.
        #expect(server.cacheUse.bytes == usersBytes)
        #expect(server.value(at: "nothing/here") == .empty)
        #expect(server.value(at: "") == json(#"{"users":{"u1":{"name":"Ada","age":36},"u2":{"name":"Alan"}},"rooms":{"r":{"topic":"x"}}}"#))
        #expect(server.cacheUse.regions == 1)
    }

    /// Before, each new location was a store read of its own: a new record's fields, written
    /// one by one, read the store once each (eight writers' new keys: a sixth of a durable
    /// write).
    @Test(
        "a write to a new location reads the widest empty location around it, so the new locations beside it need no read; below a location that holds rows, a new one is read alone; everything reads back"
    )
    func newLocationsSideBySide() throws {
        try withStore(holding: #"{"rooms":{"r1":{"topic":"x"}},"list":{"a":1,"b":2}}"#) { file in
            let server = try open(file)
            // A new record below a new location: the first field reads `users` (empty), the
            // others are in memory.
            try server.put(json(#""Ada""#), at: "users/u1/name", hash: nil)
            #expect(server.cacheUse.loads == 1 && server.cacheUse.regions == 1)
            try server.put(json("36"), at: "users/u1/age", hash: nil)
            try server.put(json(#""Alan""#), at: "users/u2/name", hash: nil)
            #expect(server.cacheUse.loads == 1, "the locations beside it were in memory")
            server.endTick()
            // Below a location with rows: each new child is read alone (a new location
            // there may hold nothing, but its siblings do).
            try server.put(json("3"), at: "list/c", hash: nil)
            try server.put(json("4"), at: "list/d", hash: nil)
            #expect(server.cacheUse.loads == 3 && server.cacheUse.regions == 3)
            #expect(server.value(at: "list") == json(#"{"a":1,"b":2,"c":3,"d":4}"#))
            // A new location below a leaf is not widened: the leaf is read.
            try server.put(json(#"{"deep":1}"#), at: "rooms/r1/topic/sub", hash: nil)
            #expect(server.value(at: "rooms/r1") == json(#"{"topic":{"sub":{"deep":1}}}"#))
            server.endTick()
            let expected = json(#"{"rooms":{"r1":{"topic":{"sub":{"deep":1}}}},"list":{"a":1,"b":2,"c":3,"d":4},"users":{"u1":{"name":"Ada","age":36},"u2":{"name":"Alan"}}}"#)
            #expect(server.value(at: "") == expected)
            try server.close()
            #expect(try open(file).value(at: "") == expected)
        }
    }

    @Test("a fresh store: the first write reads the whole (empty) tree, and every write after it is in memory; with a cache too small, a new location's first write reads the empty location around it and what was written reads back")
    func aFreshStoreIsReadOnce() throws {
        let directory = try TemporaryDirectory.make("ember-tree").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        do {
            let server = try open(file)
            for index in 0..<50 { try server.put(json("\(index)"), at: Path(keys: ["w", ChildKey(unchecked: "k\(index)")]), hash: nil) }
            #expect(server.cacheUse.loads == 1 && server.cacheUse.regions == 1)
            server.endTick()
            try server.close()
        }
        let server = try open(file, cacheSize: 1)
        for round in 0..<3 {
            for index in 0..<10 { try server.put(json("\(round)"), at: Path(keys: ["v", ChildKey(unchecked: "k\(index)")]), hash: nil) }
            server.endTick()
            #expect(server.cacheUse.regions == 0, "evicted after the tick")
        }
        // The first tick's first write read `v`, empty, whole; after it the locations hold
        // rows, and each is read alone.
        #expect(server.cacheUse.loads == 1 + 2 * 10)
        let expected = json(#"{"k0":2,"k1":2,"k2":2,"k3":2,"k4":2,"k5":2,"k6":2,"k7":2,"k8":2,"k9":2}"#)
        #expect(server.value(at: "v") == expected)
        #expect(server.value(at: "w/k49") == json("49"))
        try server.close()
        #expect(try open(file).value(at: "v") == expected)
    }

    @Test("a write below a location not in memory keeps that location's priority and other children, and drops the priority with the last child")
    func ancestorsNotInMemory() throws {
        let directory = try TemporaryDirectory.make("ember-tree").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        try seed(file, #"{"a":{".priority":5,"b":{"c":1,"d":2},"e":"x"}}"#)
        do {
            let server = try open(file)
            try server.put(.empty, at: "a/b/c", hash: nil)
            try server.close()
        }
        #expect(try rows(file) == ["a/.priority=5", "a/b/d=2", "a/e=\"x\""])
        do {
            let server = try open(file)
            try server.put(.empty, at: "a/b/d", hash: nil)
            try server.put(.empty, at: "a/e", hash: nil)
            try server.close()
        }
        #expect(try rows(file) == [], "no child left: the priority goes with them")
        #expect(try open(file).value(at: "") == .empty)
    }

    @Test("a location read during a tick shows the tick's writes below it, not yet committed")
    func readAboveUncommittedWrites() throws {
        let directory = try TemporaryDirectory.make("ember-tree").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        try seed(file, #"{"a":{".priority":5,"b":{"c":1,"d":2},"e":"x"}}"#)
        let server = try open(file)
        try server.put(json("9"), at: "a/b/c", hash: nil)
        try server.put(.empty, at: "a/e", hash: nil)
        #expect(server.hasUncommittedWork)
        #expect(server.value(at: "a") == json(#"{".priority":5,"b":{"c":9,"d":2}}"#))
        try server.close()
        #expect(try open(file).value(at: "a") == json(#"{".priority":5,"b":{"c":9,"d":2}}"#))
    }

    @Test("a location below a leaf reads as nothing; writing there replaces the leaf")
    func belowALeaf() throws {
        let directory = try TemporaryDirectory.make("ember-tree").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        try seed(file, #"{"a":{"b":{".value":5,".priority":1}},"z":true}"#)
        do {
            let server = try open(file)
            #expect(server.value(at: "a/b/c/d") == .empty)
            try server.put(json("1"), at: "a/b/c/d", hash: nil)
            #expect(server.value(at: "a") == json(#"{"b":{".priority":1,"c":{"d":1}}}"#))
            try server.close()
        }
        #expect(try open(file).value(at: "") == json(#"{"a":{"b":{".priority":1,"c":{"d":1}}},"z":true}"#))
        #expect(try rows(file) == ["a/b/.priority=1", "a/b/c/d=1", "z=true"])
    }

    @Test("a location read beside others already in memory still finds a leaf above it, and a write there replaces the leaf")
    func leafBesideLoadedRegions() throws {
        try withStore(holding: #"{"a":5,"b":{"c":{"d":1},"e":{"f":"x"}},"g":{"h":true}}"#) { file in
            let server = try open(file)
            // `b/c/d` in memory: the root, `b` and `b/c` are known to hold no leaf.
            #expect(server.value(at: "b/c/d") == json("1"))
            // Beside it, below the leaf `a`: the leaf is still found (only the root was known), so
            // the write replaces it rather than leaving its row beside the new one.
            #expect(server.value(at: "a/x/y") == .empty)
            try server.put(json("2"), at: "a/x/y", hash: nil)
            #expect(server.value(at: "b/e/f") == json(#""x""#))
            server.endTick()
            // A leaf written above a location in memory: the location reads as nothing.
            try server.put(json("7"), at: "g", hash: nil)
            #expect(server.value(at: "g/h") == .empty)
            server.endTick()
            try server.close()
            #expect(try rows(file) == ["a/x/y=2", "b/c/d=1", "b/e/f=\"x\"", "g=7"])
            // With a cache of one byte, everything is evicted after each tick; within a tick, a
            // location beside one just read, below the leaf `g`, replaces the leaf when written.
            let small = try open(file, cacheSize: 1)
            #expect(small.value(at: "b/c/d") == json("1"))
            #expect(small.value(at: "g/h/i") == .empty)
            try small.put(json("3"), at: "g/h/i", hash: nil)
            small.endTick()
            #expect(small.cacheUse.evictions > 0)
            #expect(small.value(at: "") == json(#"{"a":{"x":{"y":2}},"b":{"c":{"d":1},"e":{"f":"x"}},"g":{"h":{"i":3}}}"#))
            try small.close()
            #expect(try rows(file) == ["a/x/y=2", "b/c/d=1", "b/e/f=\"x\"", "g/h/i=3"])
        }
    }

    @Test("an object's priority stays when the object is read while every one of its children is already in memory")
    func priorityAboveHeldRegions() throws {
        // Found by `randomTicksOfSingleLocations` (its first version): `/c/c`'s rows are its
        // priority and `b/c`; with `/c/c/b` in memory, reading `/c` skipped `b/c`, built `/c/c`
        // empty, dropped its priority, then laid `/c/c/b` over it: `/c/c` came back without it.
        try withStore(holding: #"{"c":{"c":{".priority":2,"b":{"c":1}},"d":{"x":1},".priority":"p"},"e":{".priority":3,"f":{"g":true}}}"#) { file in
            let server = try open(file)
            #expect(server.value(at: "c/d") == json(#"{"x":1}"#))
            #expect(server.value(at: "c/c/b") == json(#"{"c":1}"#))
            #expect(server.value(at: "c") == json(#"{"c":{".priority":2,"b":{"c":1}},"d":{"x":1},".priority":"p"}"#))
            // The location read itself, all its children in memory.
            #expect(server.value(at: "e/f") == json(#"{"g":true}"#))
            #expect(server.value(at: "e") == json(#"{".priority":3,"f":{"g":true}}"#))
            // In memory, an object emptied in the tick loses its priority with its data.
            #expect(server.value(at: "x/y/z") == .empty)
            try server.put(json(#"{"y":{"z":1},".priority":4}"#), at: "x", hash: nil)
            server.endTick()
            try server.close()
            let again = try open(file)
            #expect(again.value(at: "x/y/z") == json("1"))
            try again.put(.empty, at: "x/y/z", hash: nil)
            #expect(again.value(at: "x") == .empty, "no data, no priority")
            #expect(again.value(at: "") == json(#"{"c":{"c":{".priority":2,"b":{"c":1}},"d":{"x":1},".priority":"p"},"e":{".priority":3,"f":{"g":true}}}"#))
            try again.close()
        }
    }

    @Test("an object emptied and written again in one tick, its priority only in the store, comes back without its priority")
    func priorityOfAnObjectEmptiedAndRefilledInOneTick() throws {
        // Firebase applies each write in turn: deleting `/d/c` deletes `/d` and its priority, and
        // `/d/a` makes a new `/d` without one. `/d` is not whole in memory (only `/d/c` is read):
        // the deletion asks the store whether `/d` holds anything else. Found by
        // `randomTicksOfSingleLocations` (its first version, one seed in 500).
        let data = #"{"d":{".priority":2,"c":{"x":1}},"e":{".priority":3,"f":{".priority":4,"g":1},"h":{"i":2}}}"#
        try withStore(holding: data) { file in
            let server = try open(file)
            try server.put(.empty, at: "d/c", hash: nil)
            try server.put(json("1"), at: "d/a", hash: nil)
            #expect(server.value(at: "d") == json(#"{"a":1}"#), "read in the same tick")
            server.endTick()
            try server.close()
            let again = try open(file)
            #expect(again.value(at: "d") == json(#"{"a":1}"#), "committed")
            try again.close()
        }
        try withStore(holding: data) { file in
            let server = try open(file)
            // `/e` keeps `/e/h`: deleting `/e/f/g` empties `/e/f` only.
            try server.put(.empty, at: "e/f/g", hash: nil)
            try server.put(json("5"), at: "e/f/z", hash: nil)
            server.endTick()
            // Two levels emptied at once, then `/e` written below again in the same tick.
            try server.put(.empty, at: "e/h/i", hash: nil)
            try server.put(.empty, at: "e/f/z", hash: nil)
            try server.put(json("6"), at: "e/k", hash: nil)
            server.endTick()
            try server.close()
            let again = try open(file)
            #expect(again.value(at: "") == json(#"{"d":{".priority":2,"c":{"x":1}},"e":{"k":6}}"#))
            try again.close()
        }
        // Across ticks the commit sees `/d` empty and deletes its priority.
        try withStore(holding: data) { file in
            let server = try open(file)
            try server.put(.empty, at: "d/c", hash: nil)
            server.endTick()
            try server.put(json("1"), at: "d/a", hash: nil)
            server.endTick()
            #expect(server.value(at: "d") == json(#"{"a":1}"#))
            try server.close()
        }
    }

    @Test("a leaf written above a location in memory by a tick whose commit fails leaves the store's rows as they were")
    func leafAboveLoadedRegionRefused() throws {
        try withStore(holding: #"{"a":{"b":{"c":1}}}"#) { file in
            let server = try open(file)
            #expect(server.value(at: "a/b/c") == json("1"))
            server.endTick()
            try #require(server.store).refusingWrites {
                try server.put(json("9"), at: "a", hash: nil)
                server.endTick()
            }
            #expect(server.lastStoreError != nil)
            #expect(server.value(at: "a/b/d") == .empty)
            #expect(server.value(at: "a") == json(#"{"b":{"c":1}}"#))
            try server.put(json("4"), at: "a/b/d", hash: nil)
            server.endTick()
            try server.close()
            #expect(try rows(file) == ["a/b/c=1", "a/b/d=4"])
        }
    }

    @Test("with a cache smaller than the data, what no listen holds is evicted after each tick, and everything reads back exactly")
    func eviction() throws {
        let directory = try TemporaryDirectory.make("ember-tree").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        var expected = Node.empty
        do {
            let server = try open(file)
            for index in 0..<50 {
                let user = json(#"{"name":"user \#(index)","score":\#(index * 7 % 13),".priority":\#(index)}"#)
                try server.put(user, at: Path(unchecked: "users/u\(index)"), hash: nil)
                expected.set(user, at: Path(unchecked: "users/u\(index)"))
            }
            try server.close()
        }
        let network = InProcessNetwork(clock: clock)
        let server = try open(file, cacheSize: 1)
        let watcher = RawClient(network, server: server)
        watcher.send { .listen(requestID: $0, query: QuerySpec(path: "users/u7"), tag: nil, hash: "") }
        network.engine.runDue()
        server.endTick()
        network.engine.runDue()
        #expect(watcher.take() == ["handshake 1700000000000", #"data users/u7 {"name":"user 7","score":10,".priority":7}"#, "ack 1 ok"])
        // Read everything: loaded whole, then split around the listen and evicted.
        #expect(server.value(at: "") == json(#"{"users":\#(expected.child("users").jsonString(.export))}"#))
        server.endTick()
        #expect(server.cacheUse.regions == 1, "only the listened location stays")
        #expect(server.cacheUse.evictions > 0)
        // Writes to evicted locations, a read of a location above them in the same tick, and
        // the listen still hears its own changes.
        try server.put(json("99"), at: "users/u3/score", hash: nil)
        try server.put(json(#""seven""#), at: "users/u7/name", hash: nil)
        expected.set(json("99"), at: "users/u3/score")
        expected.set(json(#""seven""#), at: "users/u7/name")
        #expect(server.value(at: "users/u3") == expected.child(at: "users/u3"))
        server.endTick()
        network.engine.runDue()
        #expect(watcher.take() == [#"data users/u7/name "seven""#])
        for index in stride(from: 0, to: 50, by: 7) {
            let path = Path(unchecked: "users/u\(index)")
            #expect(server.value(at: path) == expected.child(at: path))
            server.endTick()
        }
        #expect(server.value(at: "") == expected)
        try server.close()
        #expect(try open(file).value(at: "") == expected)
    }

    @Test("a location written tick after tick and evicted between them is read again before its next write; what was written reads back")
    func writesAfterEviction() throws {
        try withStore(holding: #"{"users":{"u1":{"score":1},"u2":{"score":2}}}"#) { file in
            let server = try open(file, cacheSize: 1)
            for round in 1...5 {
                // The second write to the location finds the region the first one loaded (the
                // tree remembers it); the eviction after the tick forgets both.
                try server.put(json("\(round * 10)"), at: "users/u1/score", hash: nil)
                try server.put(json("\(round * 10 + 1)"), at: "users/u1/score", hash: nil)
                #expect(server.cacheUse.loads == round, "one read of the location a tick")
                server.endTick()
                #expect(server.cacheUse.regions == 0, "nothing listened to stays after the tick")
            }
            #expect(server.cacheUse.evictions == 5)
            #expect(server.value(at: "users") == json(#"{"u1":{"score":51},"u2":{"score":2}}"#))
            try server.close()
            #expect(try open(file).value(at: "users/u1/score") == json("51"))
        }
    }

    @Test("a commit that fails puts back the tree, with the locations read during its tick as stored")
    func failedCommitWithLoads() throws {
        let directory = try TemporaryDirectory.make("ember-tree").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        try seed(file, #"{"a":{"x":1},"b":{"y":2},"c":{"z":3}}"#)
        let server = try open(file)
        #expect(server.value(at: "a") == json(#"{"x":1}"#))
        try #require(server.store).refusingWrites {
            try server.put(json("10"), at: "a/x", hash: nil)
            // Read after the tick's first write, then written.
            #expect(server.value(at: "b") == json(#"{"y":2}"#))
            try server.put(json("20"), at: "b/y", hash: nil)
            // Read after the write, not written.
            #expect(server.value(at: "c") == json(#"{"z":3}"#))
            server.endTick()
        }
        #expect(server.lastStoreError != nil)
        #expect(server.value(at: "") == json(#"{"a":{"x":1},"b":{"y":2},"c":{"z":3}}"#))
        try server.put(json("30"), at: "c/z", hash: nil)
        try server.close()
        #expect(try open(file).value(at: "") == json(#"{"a":{"x":1},"b":{"y":2},"c":{"z":30}}"#))
    }

    @Test(
        "random ticks of writes over leaves, objects, priorities and deletions, some of them failing, with a cache smaller than the data, read back as a tree kept whole would, and after reopening",
        arguments: [UInt64(1), 2, 3, 4])
    func randomTicksReadBackExactly(seed: UInt64) throws {
        // What a commit skips it decides from what each written location and its ancestors held
        // before the tick (`TickShapes`); a failed tick is undone by reading again from the
        // store. Both are checked against a tree kept whole, over paths that overlap: a leaf
        // becomes an object and back, a deletion empties a prioritized parent, a location is
        // written after one below it in the same tick.
        let directory = try TemporaryDirectory.make("ember-tree").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        var random = SeededRandom(seed: seed)
        let keys = ["a", "b", "c"]
        let values = [
            "1", #""s""#, "null", #"{"x":1}"#, #"{".value":2,".priority":1}"#, #"{"x":{"y":true},".priority":"p"}"#,
            #"{"a":1,"b":{"c":2}}"#, "null",
        ]
        func randomPath() -> Path {
            let depth = 1 + Int(random.next() % 3)
            return Path(unchecked: (0..<depth).map { _ in keys[Int(random.next() % UInt64(keys.count))] }.joined(separator: "/"))
        }
        var server = try open(file, cacheSize: 120)
        var model = Node.empty
        for tick in 0..<120 {
            var next = model
            let fails = random.next() % 6 == 0
            func writes() throws {
                for _ in 0...(random.next() % 4) {
                    let path = randomPath()
                    // Read first now and then, so that locations are loaded during the tick.
                    if random.next() % 3 == 0 { _ = server.value(at: path.parent ?? .root) }
                    let value = try Node(jsonText: values[Int(random.next() % UInt64(values.count))])
                    try server.put(value, at: path, hash: nil)
                    next.set(value, at: path)
                }
            }
            if fails {
                try #require(server.store).refusingWrites {
                    try writes()
                    server.endTick()
                }
                // A tick whose writes changed nothing has nothing to commit, and no failure.
                #expect(server.lastStoreError != nil || next == model, "tick \(tick) failed")
            } else {
                try writes()
                server.endTick()
                model = next
            }
            #expect(server.value(at: "") == model, "seed \(seed), tick \(tick)\(fails ? " (failed)" : "")")
            if tick % 30 == 29 {
                try server.close()
                server = try open(file, cacheSize: 120)
                #expect(server.value(at: "") == model, "seed \(seed), reopened after tick \(tick)")
            }
        }
        try server.close()
        #expect(try open(file).value(at: "") == model)
    }

    /// What the random ticks of ``randomTicksOfSingleLocations(mix:seed:cacheSize:)`` write.
    enum RandomMix: Sendable {
        /// Sets only.
        case sets
        /// Updates, priority writes and sets.
        case updatesAndPriorities
    }

    @Test(
        "random ticks of writes and single-location reads, regions kept across ticks (no read of the root until the end), some ticks failing, read back as a tree kept whole would",
        arguments: [
            (RandomMix.sets, UInt64(11), 1 << 20), (.sets, 12, 1 << 20), (.sets, 13, 200), (.sets, 14, 200),
            (.updatesAndPriorities, 2000, 1 << 20), (.updatesAndPriorities, 2001, 190), (.updatesAndPriorities, 2002, 1 << 20),
            (.updatesAndPriorities, 2003, 230),
        ])
    func randomTicksOfSingleLocations(mix: RandomMix, seed: UInt64, cacheSize: Int) throws {
        // A location read below regions in memory looks up only the ancestors they do not vouch
        // for (`LoadedRegions.look`), and builds its node over theirs: leaves written
        // above them, objects written over leaves, deletions that empty ancestors not in memory,
        // priorities, failed ticks and reopening must leave memory and the store exactly as a
        // tree kept whole would have them, checked location by location. (Two defects were
        // found this way: `priorityAboveHeldRegions`, `priorityOfAnObjectEmptiedAndRefilledInOneTick`.)
        try withStore(holding: "null") { file in
            var random = SeededRandom(seed: seed)
            let keys = ["a", "b", "c", "d"]
            let values = [
                "1", #""s""#, "null", #"{"x":1}"#, #"{"a":{"b":2},"c":3}"#, #"{".value":true,".priority":2}"#, "null",
                #"{"b":{".priority":7,"c":1}}"#,
            ]
            func randomPath(_ depths: Int = 4) -> Path {
                let depth = 1 + Int(random.next() % UInt64(depths))
                return Path(unchecked: (0..<depth).map { _ in keys[Int(random.next() % UInt64(keys.count))] }.joined(separator: "/"))
            }
            func randomValue() throws -> Node { try Node(jsonText: values[Int(random.next() % UInt64(values.count))]) }
            var server = try open(file, cacheSize: cacheSize)
            var model = Node.empty
            for tick in 0..<150 {
                var next = model
                let fails = random.next() % 7 == 0
                func operations() throws {
                    for _ in 0...(random.next() % 5) {
                        let read = randomPath()
                        #expect(server.value(at: read) == next.child(at: read), "seed \(seed), tick \(tick), read \(read)")
                        switch mix == .sets ? 2 : random.next() % 4 {
                        case 0:
                            // An update of one child, or of a child and a grandchild elsewhere.
                            let at = randomPath(2)
                            let first = keys[Int(random.next() % 3)]
                            var changes = [WireChange(Path(unchecked: first), try randomValue())]
                            let second = keys[Int(random.next() % 3)] + "/" + keys[Int(random.next() % 3)]
                            if !second.hasPrefix(first) { changes.append(WireChange(Path(unchecked: second), try randomValue())) }
                            try server.merge(changes, at: at)
                            for change in changes { next.set(change.node, at: at.appending(change.path)) }
                        case 1:
                            let at = randomPath().child(.priority)
                            let priority = random.next() % 3 == 0 ? Node.empty : Node(.int(Int64(random.next() % 5)))
                            try server.put(priority, at: at, hash: nil)
                            next.set(priority, at: at)
                        default:
                            let path = randomPath()
                            let value = try randomValue()
                            try server.put(value, at: path, hash: nil)
                            next.set(value, at: path)
                        }
                    }
                }
                if fails {
                    try #require(server.store).refusingWrites {
                        try operations()
                        server.endTick()
                    }
                    // A tick whose writes changed nothing has nothing to commit, and no failure.
                    #expect(server.lastStoreError != nil || next == model, "seed \(seed), tick \(tick)")
                } else {
                    try operations()
                    server.endTick()
                    model = next
                }
                for _ in 0..<3 {
                    let path = randomPath()
                    #expect(server.value(at: path) == model.child(at: path), "seed \(seed), after tick \(tick)\(fails ? " (failed)" : ""), \(path)")
                }
                server.endTick()
                if tick % 50 == 49 {
                    try server.close()
                    server = try open(file, cacheSize: cacheSize)
                }
            }
            #expect(server.value(at: "") == model)
            try server.close()
            #expect(try open(file).value(at: "") == model)
        }
    }

    @Test("rules read the locations they name from the store, and a write they allow lands")
    func rulesReadThroughTheStore() throws {
        let directory = try TemporaryDirectory.make("ember-tree").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        try seed(file, #"{"members":{"alice":true},"posts":{}}"#)
        let rules = try Ruleset(text: #"{"rules":{"posts":{"$id":{".write":"root.child('members').child(auth.uid).exists()"}}}}"#)
        let network = InProcessNetwork(clock: clock)
        let server = try open(file, rules: rules)
        #expect(server.cacheUse.loads == 0)
        let alice = RawClient(network, server: server)
        let bob = RawClient(network, server: server)
        alice.send { .auth(requestID: $0, token: try! token("alice")) }
        bob.send { .auth(requestID: $0, token: try! token("bob")) }
        alice.send { .put(requestID: $0, path: "posts/p1", data: json(#""hi""#), hash: nil, writeKey: nil) }
        bob.send { .put(requestID: $0, path: "posts/p2", data: json(#""hi""#), hash: nil, writeKey: nil) }
        network.engine.runDue()
        server.endTick()
        network.engine.runDue()
        #expect(alice.take() == ["handshake 1700000000000", "ack 1 ok", "ack 2 ok"])
        #expect(bob.take() == ["handshake 1700000000000", "ack 1 ok", "ack 2 permission_denied"])
        #expect(server.value(at: "posts") == json(#"{"p1":"hi"}"#))
    }
}
