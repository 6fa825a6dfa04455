import EmberCore
import EmberStorage
import EmberTestSupport
import Foundation
import GRDB
import Testing

/// The server's store: what a commit writes comes back exactly after a reopen, a tick's changes
/// land together, and a failing commit writes nothing.
@Suite struct ServerStoreTests {
    /// Applies `changes` to `root` and marks them, then commits.
    private func apply(_ changes: [(Path, String)], to root: inout Node, in store: ServerStore) throws {
        for (path, text) in changes {
            root.set(try Node(jsonText: text), at: path)
            store.markChanged(path)
        }
        try store.commit(root)
    }

    @Test(arguments: Durability.allCases)
    func aReopenedStoreHoldsExactlyTheTreeCommitted(durability: Durability) throws {
        let directory = try TemporaryDirectory.make("ember-server")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("server.sqlite").path
        let store = try ServerStore(at: .file(file), durability: durability)
        var root = Node.empty
        try apply(
            [
                ("users/alice", #"{"name":"Alice","age":31,"tags":{"a":true}}"#),
                ("scores", #"{"stego":5,"tri":{".value":7,".priority":2},"rex":"big"}"#),
                ("ranked", #"{".priority":"top","x":1}"#),
                ("pi", "3.5"),
            ], to: &root, in: store)
        try apply(
            [
                ("users/alice/age", "32"),
                ("users/alice/tags", "null"),  // removed
                ("pi/digits", "14"),  // a leaf becomes an object
                ("scores/rex", #"{"height":12}"#),
            ], to: &root, in: store)
        try store.close()

        let reopened = try ServerStore(at: .file(file), durability: durability)
        let loaded = try reopened.load().root
        #expect(loaded == root)
        #expect(loaded.child(at: "scores/tri").priority != nil)
        #expect(loaded.child(at: "ranked").priority != nil)
        #expect(loaded.child(at: "users/alice/tags").isEmpty)
        #expect(loaded.child(at: "pi") == (try Node(jsonText: #"{"digits":14}"#)))
    }

    /// A commit given the tree as last committed skips the search of rows below a location that
    /// held a leaf or nothing (issue 18's replay): random writes over leaves, objects and
    /// priorities, each tick committed that way, reopen to exactly the tree, row for row.
    @Test(arguments: 1...12) func commitsGivenTheCommittedTreeReopenExactly(seed: UInt64) throws {
        let directory = try TemporaryDirectory.make("ember-server")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("server.sqlite").path
        var random = SeededRandom(seed: seed)
        let paths: [Path] = ["a", "a/b", "a/b/c", "a/d", "e", "e/f", "a/b/.priority", "e/.priority"]
        let values = [
            "1", #""text""#, "null", #"{"x":1,"y":{"z":2}}"#, #"{".value":3,".priority":1}"#, #"{"c":5,".priority":"p"}"#,
            #"{"f":{"g":true}}"#, "true",
        ]
        var store = try ServerStore(at: .file(file), durability: .normal)
        _ = try store.load()
        var root = Node.empty
        for tick in 0..<40 {
            let committed = root
            for _ in 0...(random.next() % 3) {
                let path = paths[Int(random.next() % UInt64(paths.count))]
                var value = try Node(jsonText: values[Int(random.next() % UInt64(values.count))])
                if path.isPriority {
                    // A priority needs a node to hang on, and is a number or a string.
                    guard let owner = path.parent, !root.child(at: owner).isEmpty else { continue }
                    value = random.next() % 2 == 0 ? Node(.int(Int64(tick))) : Node(.string("p\(tick)"))
                }
                root.set(value, at: path)
                store.markChanged(path)
            }
            try store.commit(root, shapes: { CommittedShape(committed.child(at: $0)) })
            if tick % 10 == 9 {
                try store.close()
                store = try ServerStore(at: .file(file), durability: .normal)
                let loaded = try store.load()
                #expect(loaded.badRows.isEmpty)
                #expect(loaded.root == root, "tick \(tick)")
            }
        }
        try store.close()
    }

    @Test("a priority above locations read one at a time stays while rows remain below it, and goes with the last")
    func aPriorityAboveUnloadedLocationsFollowsTheRowsBelow() throws {
        let directory = try TemporaryDirectory.make("ember-server")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("server.sqlite").path
        var store = try ServerStore(at: .file(file), durability: .normal)
        _ = try store.load()
        store.markChanged(.root)
        try store.commit(try Node(jsonText: #"{"a":{".priority":1,"b":1}}"#))
        try store.close()
        store = try ServerStore(at: .file(file), durability: .normal)
        store.startLoadingByLocation()
        // Only the locations written are in memory; `a` and the root are not.
        let loaded: Set<Path> = ["a/b", "a/d"]
        func commit(_ json: String, _ changed: [Path], after previous: String) throws {
            for path in changed { store.markChanged(path) }
            let committed = try Node(jsonText: previous)
            try store.commit(try Node(jsonText: json), shapes: { CommittedShape(committed.child(at: $0)) }, isLoaded: { loaded.contains($0) })
        }
        func reopened() throws -> Node {
            try store.close()
            store = try ServerStore(at: .file(file), durability: .normal)
            let root = try store.load().root
            store.startLoadingByLocation()
            return root
        }
        try commit(#"{"a":{"b":1,"d":3}}"#, ["a/d"], after: #"{"a":{"b":1}}"#)
        #expect(try reopened() == Node(jsonText: #"{"a":{".priority":1,"b":1,"d":3}}"#), "data written below: the priority stays")
        try commit(#"{"a":{"d":3}}"#, ["a/b"], after: #"{"a":{"b":1,"d":3}}"#)
        #expect(try reopened() == Node(jsonText: #"{"a":{".priority":1,"d":3}}"#), "a row remains below: the priority stays")
        try commit("null", ["a/d"], after: #"{"a":{"d":3}}"#)
        #expect(try reopened() == .empty, "the last row went: the priority goes with it")
        try store.close()
    }

    @Test func openingInAMissingDirectoryNamesThePath() throws {
        let error = try #require(throws: StoreError.self) {
            try ServerStore(at: .file("/nonexistent-ember-dir/server.sqlite"), durability: .normal)
        }
        #expect(error.message.contains("/nonexistent-ember-dir/server.sqlite"))
        #expect(error.message.hasSuffix("unable to open database file"))
    }

    @Test func aFileThatIsNotADatabaseIsRefused() throws {
        let directory = try TemporaryDirectory.make("ember-server")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("notes.txt")
        try String(repeating: "not a database\n", count: 100).write(to: file, atomically: true, encoding: .utf8)
        let error = try #require(throws: StoreError.self) { try ServerStore(at: .file(file.path), durability: .normal) }
        #expect(error.message.contains(file.path))
        #expect(error.message.hasSuffix("file is not a database"))
        #expect(error.isUnreadable)
    }

    @Test("rows in path order build the tree: a leaf's priority after its siblings, children before an object's priority, a location read by its range")
    func rowsInPathOrder() throws {
        let directory = try TemporaryDirectory.make("ember-store").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        try ServerStore(at: .file(file), durability: .normal).close()
        let queue = try DatabaseQueue(path: file)
        // Path order: `a` < `a b` < `a-b` < `a/.priority`, and `o/ x` < `o/-y/k` < `o/.priority` < `o/c`.
        try queue.write { db in
            for (path, value) in [
                ("a", "1"), ("a b", "2"), ("a-b", #""s""#), ("a/.priority", "5"), ("o/ x", "3"), ("o/-y/k", "4"), ("o/.priority", #""p""#),
                ("o/c", "true"), ("o/d/.priority", "9"), ("o/d/e", "6"), (".priority", "1.5"),
            ] {
                try db.execute(sql: "INSERT INTO leaves (path, value) VALUES (?, ?)", arguments: [path, value])
            }
        }
        try queue.close()
        let store = try ServerStore(at: .file(file), durability: .normal)
        let expected = try Node(
            jsonText: #"{".priority":1.5,"a":{".value":1,".priority":5},"a b":2,"a-b":"s","#
                + #""o":{".priority":"p"," x":3,"-y":{"k":4},"c":true,"d":{".priority":9,"e":6}}}"#)
        #expect(try store.load().root == expected)
        #expect(try store.loadLocation("o").node == expected.child("o"))
        #expect(try store.loadLocation("o/d").node == expected.child(at: "o/d"))
        #expect(try store.loadLocation("a").node == expected.child("a"))
        let below = try store.loadLocation("a/x/y")
        #expect(below.path == "a" && below.node == expected.child("a"), "a location below a leaf reads the leaf's")
        // Ancestors the caller knows hold no leaf are not looked up; those below still are.
        let leafBelowKnown = try store.loadLocation("a/x/y", interiorAncestors: 1)
        #expect(leafBelowKnown.path == "a" && leafBelowKnown.node == expected.child("a"), "the root known, `a` still looked up")
        let allKnown = try store.loadLocation("a/x/y", interiorAncestors: 2)
        #expect(allKnown.node.isEmpty, "`a` taken as known: its leaf is not looked for")
        // Nothing at `a/x/y`: the empty location around it is read, up to the ancestors taken
        // as known, not above.
        #expect(allKnown.path == "a/x" && allKnown.reach == .emptyAround)
        #expect(try store.loadLocation("o/d/e", interiorAncestors: 3).node == Node(.int(6)))
        #expect(try store.loadLocation("o/d", interiorAncestors: 9).node == expected.child(at: "o/d"))
        try store.close()
    }

    @Test("a location read with locations below it skipped gives back the priorities of the nodes left empty, by their paths")
    func priorityOfNodesLeftEmptyBySkipping() throws {
        let store = try ServerStore(at: .memory, durability: .normal)
        var root = Node.empty
        try apply([("c", #"{".priority":"p","c":{".priority":2,"b":{"c":1}},"d":{"x":1},"e":{".priority":5,"f":true}}"#)], to: &root, in: store)
        let read = try store.loadLocation("c", skipping: ["c/b", "d"])
        #expect(read.node == json(#"{".priority":"p","e":{".priority":5,"f":true}}"#))
        #expect(read.heldPriorities.map(\.path) == ["c"] && read.heldPriorities.map(\.priority) == [Priority.number(2)])
        let all = try store.loadLocation("c", skipping: ["c", "d", "e"])
        #expect(all.node.isEmpty, "every row skipped, the location's own priority too is left to the caller")
        #expect(all.heldPriorities.map(\.path) == [""] && all.heldPriorities.map(\.priority) == [Priority.string("p")])
        #expect(try store.loadLocation("c").heldPriorities.isEmpty, "nothing skipped, nothing held back")
        try store.close()
    }

    @Test func removingEverythingBelowALocationLeavesNoRows() throws {
        let store = try ServerStore(at: .memory, durability: .normal)
        var root = Node.empty
        try apply([("a", #"{"b":{"c":1,".priority":4},"d":2}"#)], to: &root, in: store)
        #expect(try store.rowCount() == 3)
        try apply([("a/b/c", "null"), ("a/d", "null")], to: &root, in: store)
        #expect(root.isEmpty)
        #expect(try store.rowCount() == 0)
        #expect(try store.load().root.isEmpty)
    }

    @Test func aTicksChangesToOneLocationCostOneRewrite() throws {
        let store = try ServerStore(at: .memory, durability: .off)
        var root = Node.empty
        for value in 0..<100 {
            root.set(Node(.int(Int64(value))), at: "counter")
            store.markChanged("counter")
        }
        root.set(try Node(jsonText: #"{"x":1}"#), at: "deep/a")
        store.markChanged("deep/a")
        store.markChanged("deep")  // covers deep/a
        try store.commit(root)
        #expect(!store.hasChanges)
        #expect(try store.load().root == root)
    }

    /// A random walk of sets, updates and removals, committed every few steps and reopened at
    /// the end: the store equals the tree. Seeded, so a failure repeats.
    @Test(arguments: [1, 2, 3, 4])
    func randomChangesSurviveAReopen(seed: UInt64) throws {
        let directory = try TemporaryDirectory.make("ember-server")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("server.sqlite").path
        var random = SeededRandom(seed: seed)
        var store = try ServerStore(at: .file(file), durability: .normal)
        var root = Node.empty
        let keys: [ChildKey] = ["a", "b", "c", "-Nx1", "10", "7"]
        for step in 0..<400 {
            let depth = 1 + Int(random.next() % 3)
            let path = Path(keys: (0..<depth).map { _ in keys[Int(random.next() % UInt64(keys.count))] })
            let node: Node
            switch random.next() % 5 {
            case 0: node = .empty
            case 1: node = Node(.int(Int64(random.next() % 100)))
            case 2: node = Node(.string("s\(random.next() % 10)"), priority: Priority(.int(Int64(random.next() % 3)))!)
            case 3: node = try Node(jsonText: #"{"x":1,"y":{"z":"w"}}"#)
            default: node = Node(.bool(random.next() % 2 == 0))
            }
            root.set(node, at: path)
            store.markChanged(path)
            if step % 7 == 0 { try store.commit(root) }
            if step % 100 == 99 {
                try store.commit(root)
                try store.close()
                store = try ServerStore(at: .file(file), durability: .normal)
                #expect(try store.load().root == root, "after step \(step)")
            }
        }
        try store.commit(root)
        #expect(try store.load().root == root)
    }

    @Test("a refusal and an answer read back after a reopen say what they said, their location once")
    func refusalsAndAnswersReadBackAsTheyWere() throws {
        let directory = try TemporaryDirectory.make("ember-server")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("server.sqlite").path
        let store = try ServerStore(at: .file(file), durability: .normal)
        let denied = EmberCore.DatabaseError.permissionDenied(at: "rooms/r1")
        let stale = EmberCore.DatabaseError.other(code: "datastale", message: "the data changed", at: "a/b")
        store.recordLedger([
            .watermark(writer: "w1", client: "c1", sequence: 3), .refusal(writer: "w1", sequence: 3, denied),
            .refusal(writer: "w1", sequence: 2, .other(code: "x", message: "no location")),
        ])
        store.recordAnswer("old-key", failure: stale)
        try store.commitLedger()
        try store.close()
        let reopened = try ServerStore(at: .file(file), durability: .normal)
        let refusals = try #require(try reopened.loadLedger().first { $0.writer == "w1" }).refusals
        #expect(refusals[3]?.message == denied.message)
        #expect(refusals[3]?.message == "permission denied at /rooms/r1")
        #expect(refusals[3]?.code == "permission_denied")
        #expect(refusals[3]?.path == "rooms/r1")
        #expect(refusals[2]?.message == "no location")
        let answer = try #require(try reopened.loadAnswers().first { $0.key == "old-key" }?.failure)
        #expect(answer.message == "the data changed at /a/b")
        #expect(answer.path == "a/b")
        try reopened.close()
    }

    @Test func aCommitThatFailsWritesNothingAndKeepsItsChanges() throws {
        let directory = try TemporaryDirectory.make("ember-server")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("server.sqlite").path
        let store = try ServerStore(at: .file(file), durability: .full)
        var root = Node.empty
        try apply([("kept", "1")], to: &root, in: store)
        // The store refuses writes, as a full or failing disk would: the commit cannot happen.
        try store.refusingWrites {
            root.set(Node(.int(2)), at: "a")
            root.set(Node(.int(3)), at: "b")
            store.markChanged("a")
            store.markChanged("b")
            #expect(throws: StoreError.self) { try store.commit(root) }
            #expect(store.hasChanges)
        }
        #expect(try store.load().root.child(at: "a").isEmpty)
        #expect(try store.load().root.child(at: "b").isEmpty)
        try store.commit(root)
        #expect(try store.load().root == root)
    }

    @Test("an open store holds its file exclusively, with no shared-memory index: another connection is told it is locked until the store closes, and what was committed is there")
    func anOpenStoreHoldsItsFileExclusively() throws {
        let directory = try TemporaryDirectory.make("ember-server")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("server.sqlite").path
        let store = try ServerStore(at: .file(file), durability: .full)
        var root = Node.empty
        try apply([("a", "1")], to: &root, in: store)
        #expect(!FileManager.default.fileExists(atPath: file + "-shm"), "the log's index is in the connection's memory")
        let error = try #require(throws: GRDB.DatabaseError.self) { try DatabaseQueue(path: file) }
        #expect(error.resultCode == .SQLITE_BUSY)
        try store.close()
        let other = try DatabaseQueue(path: file)
        #expect(try other.read { try String.fetchOne($0, sql: "SELECT value FROM leaves WHERE path = 'a'") } == "1")
        try other.close()
    }

    @Test("a store left by a crash of a version that kept the WAL's index in a -shm file opens, with every committed row of its WAL")
    func aCrashImageWithASharedMemoryIndexOpens() throws {
        let directory = try TemporaryDirectory.make("ember-server")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("server.sqlite").path
        let image = directory.appendingPathComponent("image.sqlite").path
        let store = try ServerStore(at: .file(file), durability: .full)
        var root = Node.empty
        try apply([("a", "1")], to: &root, in: store)
        try store.close()
        // A connection as earlier versions opened the file (WAL, normal locking: a -shm file),
        // its commit still in the WAL when the process dies: the files copied while it is open.
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        }
        let old = try DatabaseQueue(path: file, configuration: configuration)
        try old.write { db in try db.execute(sql: "INSERT INTO leaves (path, value) VALUES ('b', '2')") }
        #expect(FileManager.default.fileExists(atPath: file + "-shm"))
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: file + suffix, toPath: image + suffix)
        }
        try old.close()
        let reopened = try ServerStore(at: .file(image), durability: .full)
        #expect(try reopened.load().root == json(#"{"a":1,"b":2}"#))
        try reopened.close()
    }

    @Test func aFileThatIsNotADatabaseIsReportedByName() throws {
        let directory = try TemporaryDirectory.make("ember-server")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("notes.txt").path
        try "just some text, not SQLite, long enough to have a header".write(toFile: file, atomically: true, encoding: .utf8)
        let error = try #require(throws: StoreError.self) { try ServerStore(at: .file(file), durability: .normal) }
        #expect(error.message.contains(file))
    }

    @Test func aDirectoryThatDoesNotExistIsReportedByName() throws {
        let file = "/nonexistent-ember-dir/server.sqlite"
        let error = try #require(throws: StoreError.self) { try ServerStore(at: .file(file), durability: .normal) }
        #expect(error.message.contains(file))
    }
}
