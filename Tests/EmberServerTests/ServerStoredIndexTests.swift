import EmberCore
import EmberRules
@testable import EmberServer
import EmberStorage
import EmberTestSupport
import EmberWire
import Foundation
import GRDB
import Testing

/// Indexed queries on a location not in memory read the index the store keeps, and answer
/// exactly what the whole location in memory answers, through every kind of write, eviction,
/// a reopening, an import and a change of rules.
@Suite("Server stored indexes")
struct ServerStoredIndexTests {
    let clock = ManualClock(1_700_000_000_000)
    static let rules = try! Ruleset(text: #"{"rules":{".read":true,".write":true,"users":{".indexOn":["score",".value","p/q"]}}}"#)

    private func open(_ file: String, rules: Ruleset? = ServerStoredIndexTests.rules, cacheSize: Int = 1) throws -> Server {
        try Server(clock: clock, rules: rules, store: try ServerStore(at: .file(file), durability: .normal), cacheSize: cacheSize)
    }

    /// A random value for a user's score or a user: every type, numbers that tie, strings.
    private func randomValue(_ random: inout SeededRandom) -> Node {
        switch Int.random(in: 0..<12, using: &random) {
        case 0: return .empty
        case 1: return Node(.bool(Bool.random(using: &random)))
        case 2, 3: return Node(.int(Int64.random(in: -3...3, using: &random)))
        case 4: return Node(.double(Double(Int.random(in: -6...6, using: &random)) / 2))
        case 5, 6: return Node(.string(["", "a", "b", "ab", "é", "😀", "\u{E000}"].randomElement(using: &random)!))
        case 7: return json(#"{"x":1}"#)
        default: return Node(.int(Int64.random(in: 0...20, using: &random)))
        }
    }

    private func randomUser(_ random: inout SeededRandom) -> Node {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return randomValue(&random)
        default:
            var user = json(#"{"name":"n"}"#)
            user.set(randomValue(&random), at: "score")
            if Bool.random(using: &random) { user.set(randomValue(&random), at: "p/q") }
            if Int.random(in: 0..<4, using: &random) == 0, !user.isEmpty { user = user.withPriority(Priority(.int(Int64.random(in: 0...3, using: &random)))) }
            return user
        }
    }

    private func randomKey(_ random: inout SeededRandom) -> ChildKey {
        ChildKey(unchecked: ["1", "2", "10", "-1", "007", "a", "b", "u1", "u2", "u10", "é", "z"].randomElement(using: &random)!)
    }

    private func randomQuery(_ random: inout SeededRandom) throws -> QuerySpec {
        let order: Index = [.child("score"), .value, .child("p/q")].randomElement(using: &random)!
        var params = try QueryParams().orderedBy(order)
        let bounds: [LeafValue?] = [nil, .bool(true), .int(0), .int(2), .double(1.5), .string("a"), .string("b")]
        let keys: [ChildKey?] = [nil, ChildKey(unchecked: "2"), ChildKey(unchecked: "u1")]
        func bound() -> LeafValue? { bounds.randomElement(using: &random)! }
        func key() -> ChildKey? { keys.randomElement(using: &random)! }
        switch Int.random(in: 0..<6, using: &random) {
        case 0: params = try params.startingAt(bound(), key: key())
        case 1: params = try params.startingAfter(bound(), key: key())
        case 2: params = try params.equalTo(bound(), key: key())
        default: break
        }
        switch params.end != nil ? 4 : Int.random(in: 0..<5, using: &random) {
        case 0: params = try params.endingAt(bound(), key: key())
        case 1: params = try params.endingBefore(bound(), key: key())
        default: break
        }
        switch Int.random(in: 0..<4, using: &random) {
        case 0: params = try params.limitedToFirst(Int.random(in: 1...4, using: &random))
        case 1, 2: params = try params.limitedToLast(Int.random(in: 1...4, using: &random))
        default: if params.loadsAllData { params = try params.limitedToLast(3) }
        }
        return QuerySpec(path: "users", params: params)
    }

    @Test("random writes, queries, reopenings: the store's index answers as the location in memory does", arguments: [1, 2, 3, 4])
    func matchesMemory(seed: UInt64) throws {
        let directory = try TemporaryDirectory.make("ember-stored-index").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        var random = SeededRandom(seed: seed)
        let reference = Server(clock: clock, rules: Self.rules)
        var server = try open(file)
        var fromIndex = 0
        for step in 0..<250 {
            // One to three writes in a tick, as a client's burst would make.
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let key = randomKey(&random)
                let user = Path.root.child("users").child(key)
                switch Int.random(in: 0..<10, using: &random) {
                case 0:
                    // The location whole (rare: the index is rebuilt).
                    if Int.random(in: 0..<4, using: &random) == 0 {
                        var users = Node.empty
                        for _ in 0..<Int.random(in: 0...6, using: &random) { users.set(randomUser(&random), at: Path(keys: [randomKey(&random)])) }
                        try server.put(users, at: "users", hash: nil)
                        try reference.put(users, at: "users", hash: nil)
                    }
                case 1:
                    var changes: [WireChange] = []
                    var seen: Set<ChildKey> = []
                    for _ in 0..<Int.random(in: 1...4, using: &random) {
                        let child = randomKey(&random)
                        guard seen.insert(child).inserted else { continue }
                        changes.append(WireChange(Path(keys: [child, "score"]), randomValue(&random)))
                    }
                    try server.merge(changes, at: "users")
                    try reference.merge(changes, at: "users")
                case 2:
                    let value = Int.random(in: 0..<2, using: &random) == 0 ? Node.empty : randomValue(&random)
                    try server.put(value, at: user.appending("p/q"), hash: nil)
                    try reference.put(value, at: user.appending("p/q"), hash: nil)
                case 3:
                    let priority = Node(.int(Int64.random(in: 0...3, using: &random)))
                    try? server.put(priority, at: user.child(.priority), hash: nil)
                    try? reference.put(priority, at: user.child(.priority), hash: nil)
                case 4:
                    try server.put(.empty, at: user, hash: nil)
                    try reference.put(.empty, at: user, hash: nil)
                case 5:
                    try server.put(json(#"{"deep":1}"#), at: user.appending("score/x"), hash: nil)
                    try reference.put(json(#"{"deep":1}"#), at: user.appending("score/x"), hash: nil)
                case 6:
                    let value = randomValue(&random)
                    try server.put(value, at: user.child("name"), hash: nil)
                    try reference.put(value, at: user.child("name"), hash: nil)
                default:
                    let value = randomUser(&random)
                    let target = Bool.random(using: &random) ? user : user.child("score")
                    try server.put(value, at: target, hash: nil)
                    try reference.put(value, at: target, hash: nil)
                }
            }
            server.endTick()
            if step % 60 == 59 {
                try server.close()
                server = try open(file)
            }
            for _ in 0..<2 {
                let query = try randomQuery(&random)
                let loads = server.cacheUse.loads
                let answer = try server.read(query).get()
                #expect(answer == reference.data(for: query), "seed \(seed) step \(step): \(query)")
                if answer.childCount > 1 && server.cacheUse.loads - loads == answer.childCount { fromIndex += 1 }
                server.endTick()
            }
        }
        #expect(fromIndex > 50, "the store's index answered \(fromIndex) queries")
        #expect(server.value(at: "") == reference.value(at: ""))
        try server.close()
    }

    /// Imports `export` at `path`, its pieces at most `subtreeBytes` each.
    private func importing(_ export: String, at path: Path, into server: Server, subtreeBytes: Int) throws -> Int {
        try server.importStreaming(at: path, producing: { deliver in
            var reader = ExportReader(Text(bytes: Array(export.utf8)), subtreeBytes: subtreeBytes)
            try reader.read(at: path, deliver)
        }, checkpoint: { _ in })
    }

    @Test(
        "an import builds the indexes the rules declare where it lands, from its pieces or its rows; later imports keep them; a change of rules drops what they no longer declare",
        arguments: [1, 1 << 18])
    func importAndRules(subtreeBytes: Int) throws {
        let directory = try TemporaryDirectory.make("ember-stored-index").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        var server = try open(file)
        let export = #"{"users":{"a":{"score":3},"b":{"score":1},"c":{"score":2},"d":{"name":"no score"}},"other":1}"#
        #expect(try importing(export, at: .root, into: server, subtreeBytes: subtreeBytes) == 5)
        #expect(server.store!.storedIndexes.map(\.order.wireName).sorted() == [".value", "p/q", "score"])
        try server.close()
        server = try open(file)
        let top = QuerySpec(path: "users", params: try QueryParams().orderedBy(.child("score")).limitedToLast(2))
        #expect(try server.read(top).get() == json(#"{"a":{"score":3},"c":{"score":2}}"#))
        #expect(server.cacheUse.loads == 2, "only the two users returned were read")
        let nulls = QuerySpec(path: "users", params: try QueryParams().orderedBy(.child("score")).limitedToFirst(1))
        #expect(try server.read(nulls).get() == json(#"{"d":{"name":"no score"}}"#))
        server.endTick()
        // An import into one child moves it; an import of the location replaces every entry.
        _ = try importing(#"{"score":10,"name":"e"}"#, at: "users/e", into: server, subtreeBytes: subtreeBytes)
        _ = try importing(#"{"score":-1}"#, at: "users/a", into: server, subtreeBytes: subtreeBytes)
        server.endTick()
        #expect(try server.read(top).get() == json(#"{"c":{"score":2},"e":{"score":10,"name":"e"}}"#))
        server.endTick()
        _ = try importing(#"{"x":{"score":5},"y":{"score":4},"z":7}"#, at: "users", into: server, subtreeBytes: subtreeBytes)
        server.endTick()
        #expect(try server.read(top).get() == json(#"{"x":{"score":5},"y":{"score":4}}"#))
        let byValue = QuerySpec(path: "users", params: try QueryParams().orderedBy(.value).limitedToFirst(1))
        #expect(try server.read(byValue).get() == json(#"{"z":7}"#))
        try server.setRules(try Ruleset(text: #"{"rules":{".read":true,".write":true,"users":{".indexOn":"score"}}}"#))
        #expect(server.store!.storedIndexes.map(\.order.wireName) == ["score"])
        try server.close()
        // The entries of the dropped indexes are gone, and the kept one holds the three users.
        let queue = try DatabaseQueue(path: file)
        defer { try? queue.close() }
        let counts = try queue.read { db in try Int.fetchAll(db, sql: "SELECT count(*) FROM index_entries GROUP BY idx") }
        #expect(counts == [3])
    }
}

/// An export held in memory.
private struct Text: ExportReader.Source {
    let bytes: [UInt8]
    var byteCount: Int { bytes.count }
    func bytes(at offset: Int, count: Int) throws(EmberCore.DatabaseError) -> [UInt8] {
        Array(bytes[offset..<min(bytes.count, offset + count)])
    }
}
