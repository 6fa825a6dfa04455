import EmberCore
@testable import EmberStorage
import EmberTestSupport
import Foundation
import GRDB
import Testing

/// A client's store: the cache, the write queue, tracked queries and pins come back after a
/// reopen; the cache answers a query with what it can trust; pruning drops the least recently
/// used inactive data only.
@Suite struct ClientStoreTests {
    private func makeFile() throws -> (directory: URL, file: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ember-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory, directory.appendingPathComponent("client.sqlite").path)
    }

    private func query(_ path: Path, _ build: (QueryParams) throws -> QueryParams) throws -> QuerySpec {
        QuerySpec(path: path, params: try build(QueryParams()))
    }

    @Test func theCacheComesBackAfterAReopen() throws {
        let (directory, file) = try makeFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ClientStore(at: .file(file), durability: .normal, now: 0)
        store.overwriteServerCache(json(#"{"a":{"x":1,"y":{".value":2,".priority":5}},"b":"leaf"}"#), at: "data")
        store.mergeIntoServerCache([("a/x", json("10")), ("c", json(#"{"z":true}"#))], at: "data")
        store.overwriteServerCache(json(#"{"deep":1}"#), at: "data/b")  // a leaf becomes an object
        try store.close()
        let reopened = try ClientStore(at: .file(file), durability: .normal, now: 0)
        #expect(try reopened.cachedNode(at: "data") == json(#"{"a":{"x":10,"y":{".value":2,".priority":5}},"b":{"deep":1},"c":{"z":true}}"#))
        #expect(try reopened.cachedNode(at: "data/a/y") == json(#"{".value":2,".priority":5}"#))
        #expect(try reopened.cachedNode(at: "elsewhere").isEmpty)
    }

    /// A store written before `v3-writes-by-row` (its queue keyed by a unique key, rows numbered
    /// by AUTOINCREMENT) keeps its queue, in order, and answered writes leave it by their rows.
    @Test func aQueueFromBeforeTheRowMigrationComesBackAndDrains() throws {
        let (directory, file) = try makeFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The schema as v1 and v2 left it, with two queued writes at rows 7 and 9.
        let old = try DatabaseQueue(path: file)
        try old.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1-client'), ('v2-identity');
                    CREATE TABLE cache (path TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
                    CREATE TABLE writes (seq INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, path TEXT NOT NULL,
                        kind TEXT NOT NULL, value TEXT NOT NULL);
                    CREATE TABLE queries (id INTEGER PRIMARY KEY, path TEXT NOT NULL, params TEXT NOT NULL, complete BOOLEAN NOT NULL,
                        active BOOLEAN NOT NULL, lastUse INTEGER NOT NULL, keys TEXT NOT NULL);
                    CREATE TABLE pins (path TEXT NOT NULL, params TEXT NOT NULL, PRIMARY KEY (path, params)) WITHOUT ROWID;
                    CREATE TABLE meta (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
                    INSERT INTO meta VALUES ('identity', 'old');
                    INSERT INTO writes VALUES (7, 'old.s#1', 'a', 'put', '1');
                    INSERT INTO writes VALUES (9, 'old.s#2', 'b', 'merge', '{"0":{"p":"c","v":2}}');
                    """)
        }
        try old.close()
        let store = try ClientStore(at: .file(file), durability: .normal, now: 0)
        #expect(store.identity == "old")
        let queue = try store.loadQueue()
        #expect(queue.map(\.row) == [7, 9])
        #expect(queue.map(\.write) == [
            PersistedWrite(key: "old.s#1", path: "a", change: .put(json("1"))),
            PersistedWrite(key: "old.s#2", path: "b", change: .merge([.init("c", json("2"))])),
        ])
        let added = store.saveWrite(PersistedWrite(key: "new.s#1", path: "d", change: .put(json("3"))))
        #expect(added == 10, "after the last row")
        store.removeWrite(row: 7)
        store.removeWrite(row: 9)
        try store.close()
        let reopened = try ClientStore(at: .file(file), durability: .normal, now: 0)
        #expect(try reopened.loadQueue() == [QueuedWrite(row: 10, write: PersistedWrite(key: "new.s#1", path: "d", change: .put(json("3"))))])
    }

    @Test func changesInOneCommitLandInOrderWhereLeavesAndObjectsAlternate() throws {
        let store = try ClientStore(at: .memory, durability: .normal, now: 0)
        store.overwriteServerCache(json("1"), at: "x/y")
        store.overwriteServerCache(json(#""leaf""#), at: "x")
        store.overwriteServerCache(json("2"), at: "x/z")
        store.overwriteServerCache(json("3"), at: "w/v")
        store.overwriteServerCache(json("true"), at: "w/v/u")
        #expect(try store.cachedNode(at: "") == json(#"{"x":{"z":2},"w":{"v":{"u":true}}}"#))
    }

    @Test func theWriteQueueComesBackInOrderWithItsKeys() throws {
        let (directory, file) = try makeFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ClientStore(at: .file(file), durability: .full, now: 0)
        let writes = [
            PersistedWrite(key: "s1:w1", path: "a", change: .put(json(#"{"t":{".sv":"timestamp"},".priority":"p"}"#))),
            PersistedWrite(
                key: "s1:w2", path: "",
                change: .merge([.init("b/c", json(#"{".sv":{"increment":2}}"#)), .init("d", .empty), .init("e", json("[1,2]"))])),
            PersistedWrite(key: "s1:w3", path: "f", change: .put(.empty)),
        ]
        let rows = writes.map { store.saveWrite($0) }
        try store.commit()
        store.removeWrite(row: rows[0])
        try store.close()
        let reopened = try ClientStore(at: .file(file), durability: .full, now: 0)
        #expect(try reopened.loadQueue().map(\.write) == Array(writes.dropFirst()))
    }

    @Test func trackedQueriesAndPinsComeBackInactive() throws {
        let (directory, file) = try makeFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        let top = try query("scores") { try $0.orderedBy(.value).limitedToLast(4) }
        let ranged = try query("users") { try $0.orderedBy(.child("age")).startingAfter(.int(18), key: ChildKey(validating: "bob")).endingAt(nil) }
        let store = try ClientStore(at: .file(file), durability: .normal, now: 100)
        store.setQueryActive(top, now: 100)
        store.setQueryComplete(top, keys: ["a", "b"], now: 150)
        store.setQueryActive(ranged, now: 120)
        store.setQueryActive(.default(at: "rooms"), now: 130)
        store.setQueryInactive(.default(at: "rooms"), now: 140)
        store.pin(try query("config") { try $0.orderedBy(.key) })
        try store.close()

        let reopened = try ClientStore(at: .file(file), durability: .normal, now: 500)
        let tracked = reopened.trackedQueries
        // Least recently used first: the inactive rooms (140), then the two that were active
        // when the client stopped, in use until the restart (500), by age.
        #expect(tracked.map(\.query) == [.default(at: "rooms"), top, ranged])
        #expect(tracked.map(\.lastUse) == [140, 500, 500])
        #expect(tracked.allSatisfy { !$0.isActive }, "nothing listens after a restart")
        #expect(reopened.trackedQuery(top)?.isComplete == true)
        #expect(reopened.trackedQuery(top)?.keys == ["a", "b"])
        #expect(reopened.trackedQuery(ranged)?.isComplete == false)
        #expect(reopened.pins == [try query("config") { try $0.orderedBy(.key) }])
    }

    @Test func theCacheAnswersAQueryWithWhatItCanTrust() throws {
        let store = try ClientStore(at: .memory, durability: .normal, now: 0)
        let top2 = try query("scores") { try $0.orderedBy(.value).limitedToLast(2) }
        let top3 = try query("scores") { try $0.orderedBy(.value).limitedToLast(3) }
        store.overwriteServerCache(json(#"{"a":1,"b":2,"c":3,"d":4}"#), at: "scores")
        // Nothing completed: nothing is trusted.
        #expect(try store.serverCache(for: top2) == StoredServerCache(node: .empty, coverage: .partial))
        store.setQueryComplete(top2, keys: ["c", "d"], now: 1)
        #expect(try store.serverCache(for: top2) == StoredServerCache(node: json(#"{"c":3,"d":4}"#), coverage: .completeWindow))
        #expect(try store.serverCache(for: top3) == StoredServerCache(node: json(#"{"c":3,"d":4}"#), coverage: .partial))
        #expect(try store.serverCache(for: .default(at: "scores")) == StoredServerCache(node: json(#"{"c":3,"d":4}"#), coverage: .partial))
        // A complete default query above makes everything below complete.
        store.setQueryComplete(.default(at: ""), keys: [], now: 2)
        #expect(try store.serverCache(for: top3) == StoredServerCache(node: json(#"{"a":1,"b":2,"c":3,"d":4}"#), coverage: .complete))
        #expect(try store.serverCache(for: .default(at: "scores/a")) == StoredServerCache(node: json("1"), coverage: .complete))
    }

    @Test func pruningDropsTheLeastRecentlyUsedInactiveDataOnly() throws {
        let store = try ClientStore(at: .memory, durability: .normal, cacheSizeLimit: 3_000, now: 0)
        let blob = Node(.string(String(repeating: "x", count: 900)))
        for (index, name) in ["old", "older", "active", "pinned", "written", "recent"].enumerated() {
            store.overwriteServerCache(Node(children: [(ChildKey(unchecked: "v"), blob)]), at: Path(keys: [ChildKey(unchecked: name)]))
            store.setQueryActive(.default(at: Path(keys: [ChildKey(unchecked: name)])), now: Int64([20, 10, 5, 1, 2, 90][index]))
            store.setQueryComplete(.default(at: Path(keys: [ChildKey(unchecked: name)])), keys: [], now: 0)
        }
        for name in ["old", "older", "pinned", "written", "recent"] {
            store.setQueryInactive(.default(at: Path(keys: [ChildKey(unchecked: name)])), now: 0)
        }
        store.pin(.default(at: "pinned"))
        store.saveWrite(PersistedWrite(key: "s:w1", path: "written/v", change: .put(json("1"))))
        #expect(try store.cacheSize() > 5_000)
        let pruned = try store.pruneIfNeeded()
        #expect(try store.cacheSize() <= 3_000)
        // The two least recently used inactive queries went first; pinned, active and written
        // data stayed.
        #expect(try store.cachedNode(at: "older").isEmpty)
        #expect(try store.cachedNode(at: "old").isEmpty)
        #expect(!(try store.cachedNode(at: "active").isEmpty))
        #expect(!(try store.cachedNode(at: "pinned").isEmpty))
        #expect(!(try store.cachedNode(at: "written").isEmpty))
        #expect(pruned >= 2)
        #expect(store.trackedQuery(.default(at: "older")) == nil)
        #expect(store.trackedQuery(.default(at: "active")) != nil)
    }

    /// Before, a size check due made the deferred commit on the engine's thread, which then
    /// read every cached row: every thousand server updates, however large the cache.
    @Test(
        "a size check due with a deferred commit is made on the store's queue; only a cache found over its limit is pruned, by the next commit, on the caller's thread"
    )
    func sizeChecksRunOnTheStoresQueue() throws {
        let (directory, file) = try makeFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ClientStore(at: .file(file), durability: .normal, cacheSizeLimit: 3_000, pruneCheckInterval: 4, now: 0)
        let blob = Node(.string(String(repeating: "x", count: 900)))
        func cache(_ name: String, at time: Int64, active: Bool = false) {
            let path = Path(keys: [ChildKey(unchecked: name)])
            store.overwriteServerCache(Node(children: [(ChildKey(unchecked: "v"), blob)]), at: path)
            store.setQueryActive(.default(at: path), now: time)
            store.setQueryComplete(.default(at: path), keys: [], now: time)
            if !active { store.setQueryInactive(.default(at: path), now: time) }
        }
        // Under the limit at the check: nothing comes back to the caller's thread.
        cache("old", at: 1)
        cache("older", at: 0)
        try store.commit()
        cache("active", at: 5, active: true)
        store.overwriteServerCache(json("1"), at: "small")
        try store.commitInBackground()
        #expect(store.hasBackgroundCommits, "handed over, with its size check")
        store.queue.inDatabase { _ in }
        #expect(!store.backgroundCommits.isPruneDue)

        // Over the limit at the next check (four more server updates): the deferred commit is
        // still handed over, and nothing is pruned on the caller's thread...
        cache("recent", at: 9)
        cache("newest", at: 10)
        store.overwriteServerCache(json("2"), at: "small")
        store.overwriteServerCache(json("3"), at: "small")
        try store.commitInBackground()
        #expect(store.hasBackgroundCommits, "handed over, with its size check")
        #expect(store.trackedQuery(.default(at: "older")) != nil)
        #expect(try store.cacheSize() > 3_000)
        #expect(store.backgroundCommits.isPruneDue)
        #expect(!(try store.cachedNode(at: "older").isEmpty))

        // ...until the next commit, made here, prunes the least recently used inactive data.
        store.overwriteServerCache(json("4"), at: "small")
        try store.commitInBackground()
        #expect(!store.hasBackgroundCommits, "made on the caller's thread")
        #expect(!store.backgroundCommits.isPruneDue)
        #expect(try store.cacheSize() <= 3_000)
        #expect(try store.cachedNode(at: "older").isEmpty)
        #expect(store.trackedQuery(.default(at: "older")) == nil)
        #expect(!(try store.cachedNode(at: "active").isEmpty))
        #expect(try store.cachedNode(at: "small") == json("4"))
        try store.close()
        let reopened = try ClientStore(at: .file(file), durability: .normal, now: 0)
        #expect(try reopened.cachedNode(at: "older").isEmpty)
        #expect(try reopened.cachedNode(at: "small") == json("4"))
    }

    /// Before, each pruned query was checked against every kept location, and each row below a
    /// pruned location against every kept one inside it: 200,000 children did not finish in 16
    /// minutes.
    @Test(.timeLimit(.minutes(5)))
    func pruningTwoHundredThousandCachedChildrenKeepsActivePinnedAndQueuedLocations() throws {
        let count = 200_000
        let store = try ClientStore(at: .memory, durability: .normal, cacheSizeLimit: 1_000_000, now: 0)
        let children = (0..<count).map { index in
            (ChildKey(unchecked: "c\(index)"), Node(children: [(ChildKey(unchecked: "v"), Node(.int(Int64(index))))]))
        }
        store.overwriteServerCache(Node(children: children), at: "data")
        store.setQueryComplete(.default(at: "data"), keys: [], now: 1)
        // Each child also completed on its own (as a confirmed write to it records), used in order.
        for index in 0..<count {
            store.setQueryComplete(.default(at: Path(keys: ["data", ChildKey(unchecked: "c\(index)")])), keys: [], now: Int64(index + 2))
        }
        let active: Path = "data/c5", pinned: Path = "data/c6", written: Path = "data/c7/v"
        let window = try QuerySpec(path: "data", params: QueryParams().orderedBy(.key).limitedToFirst(2))
        store.setQueryActive(.default(at: active), now: 0)
        store.pin(.default(at: pinned))
        store.setQueryActive(window, now: 0)
        store.setQueryComplete(window, keys: ["c0", "c1"], now: 0)
        store.saveWrite(PersistedWrite(key: "s:w1", path: written, change: .put(json("1"))))
        #expect(try store.cacheSize() > 3_000_000)

        let pruned = try store.pruneIfNeeded()
        #expect(try store.cacheSize() <= 1_000_000)
        #expect(pruned > count / 2)
        for kept in ["data/c0", "data/c1", "data/c5", "data/c6", "data/c7"] as [Path] {
            #expect(try store.cachedNode(at: kept.child("v")) != .empty, "\(kept) stays")
        }
        // The least recently used went first: the oldest children and the whole location.
        #expect(store.trackedQuery(.default(at: "data")) == nil)
        #expect(try store.cachedNode(at: "data/c2").isEmpty)
        #expect(try store.cachedNode(at: "data/c100000").isEmpty)
        #expect(store.trackedQuery(.default(at: "data/c100000")) == nil)
        // The most recently used that fit stay, whole.
        let last = Path(keys: ["data", ChildKey(unchecked: "c\(count - 1)")])
        #expect(store.trackedQuery(.default(at: last)) != nil)
        #expect(try store.cachedNode(at: last) == json(#"{"v":\#(count - 1)}"#))
        // What is left is exactly the kept and the still tracked children's data.
        let left = try store.cachedNode(at: "data")
        let tracked = Set(store.trackedQueries.map(\.query.path))
        for child in left.children {
            let path = Path(keys: ["data", child.key])
            #expect(tracked.contains(path) || ["c0", "c1", "c6", "c7"].contains(child.key.name), "\(path) is kept for a reason")
        }
    }

    @Test(
        "deferred commits made on the store's queue land before what follows; one that fails gives its changes back and those queued after it stand aside, so they land in order"
    )
    func backgroundCommitsLandInOrder() throws {
        let (directory, file) = try makeFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ClientStore(at: .file(file), durability: .normal, now: 0)
        store.overwriteServerCache(json(#"{"x":1}"#), at: "a")
        try store.commitInBackground()
        #expect(store.hasBackgroundCommits)
        #expect(!store.hasChanges, "handed over")
        // A read commits first, which waits for the store's queue.
        #expect(try store.cachedNode(at: "a") == json(#"{"x":1}"#))
        #expect(!store.hasBackgroundCommits)

        try store.refusingWrites {
            // Both are queued behind this, so both run while the store refuses writes.
            try store.queue.inDatabase { _ in
                store.overwriteServerCache(json("2"), at: "a/x")
                try store.commitInBackground()
                store.overwriteServerCache(json("3"), at: "a/x")
                store.overwriteServerCache(json("4"), at: "a/y")
                try store.commitInBackground()
            }
            store.queue.inDatabase { _ in }
            #expect(store.hasChanges, "the failed commits' changes wait to be taken back")
            // With a failure waiting, a deferred commit is made here and now, and fails here.
            store.overwriteServerCache(json("5"), at: "b")
            #expect(throws: StoreError.self) { try store.commitInBackground() }
            #expect(store.hasChanges)
        }
        try store.commit()
        #expect(!store.hasChanges)
        let committed = try store.cachedNode(at: "")
        #expect(committed == json(#"{"a":{"x":3,"y":4},"b":5}"#))
        try store.close()
        let reopened = try ClientStore(at: .file(file), durability: .normal, now: 0)
        #expect(try reopened.cachedNode(at: "") == json(#"{"a":{"x":3,"y":4},"b":5}"#))
    }

    @Test func aCommitThatFailsKeepsItsChangesForTheNextOne() throws {
        let (directory, file) = try makeFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ClientStore(at: .file(file), durability: .full, now: 0)
        try store.commit()
        try store.refusingWrites {
            store.saveWrite(PersistedWrite(key: "s:w1", path: "a", change: .put(json("1"))))
            #expect(throws: StoreError.self) { try store.commit() }
            #expect(store.hasChanges)
        }
        try store.commit()
        #expect(try store.loadQueue().map(\.write).map(\.key) == ["s:w1"])
    }
}
