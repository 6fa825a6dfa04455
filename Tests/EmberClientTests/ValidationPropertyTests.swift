import EmberClient
import EmberCore
import EmberInstance
import EmberServer
import EmberStorage
import EmberTestSupport
import Foundation
import Testing

/// Validation against loading, as a property: random writes through a client, with every edge
/// issue 18 found (priorities on the deepest nodes, 10 MB strings and priorities, increments
/// that overflow, keys at the byte limit, paths one level too deep). Whatever the server
/// acknowledged reopens, whole: the reopened tree is exactly the tree that was acknowledged,
/// and no row is left out.
@Suite("Validation against loading")
struct ValidationPropertyTests {
    /// A random path of `depth` keys, from a small pool so that writes meet.
    static func path(depth: Int, _ random: inout SeededRandom) -> String {
        guard depth > 0 else { return "" }
        return (0..<depth).map { _ in ["a", "b", "c"][Int(random.next() % 3)] }.joined(separator: "/")
    }

    /// A value with an edge now and then. The 10 MB edges are rare (each costs seconds in a
    /// debug build): `large` says whether they may come.
    static func value(_ random: inout SeededRandom, large: Bool) -> Node {
        switch random.next() % 12 {
        case 0 where large: return Node(.string(String(repeating: "s", count: Limits.maxStringBytes)))
        case 1: return Node(.string(String(repeating: "s", count: Limits.maxStringBytes + 1)))
        case 2: return Node(.int(1), priority: .string(String(repeating: "p", count: Limits.maxStringBytes + 1)))
        case 3 where large: return Node(.int(1), priority: .string(String(repeating: "p", count: Limits.maxStringBytes)))
        case 0, 3: return Node(.string(String(repeating: "s", count: 1000)), priority: .string("p"))
        case 4: return json(#"{".sv":{"increment":1e308}}"#)
        case 5: return json(#"{".sv":{"increment":-1.7e308}}"#)
        case 6: return json(#"{".sv":{"increment":9223372036854775807}}"#)
        case 7: return Node(children: [(ChildKey(unchecked: String(repeating: "k", count: Limits.maxKeyBytes)), Node(.bool(true)))])
        case 8: return Node(.double(.greatestFiniteMagnitude), priority: .number(-.greatestFiniteMagnitude))
        default: return RandomTree.node(&random, depth: 3)
        }
    }

    @Test("whatever is acknowledged reopens, exactly", arguments: [1, 2, 3] as [UInt64])
    func acknowledgedReopens(seed: UInt64) throws {
        let directory = try TemporaryDirectory.make("ember-db").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var random = SeededRandom(seed: seed)
        var acknowledged = 0
        var refused = 0
        let before: Node
        do {
            let ember = try openEmber(directory, seed: seed)
            let main = client(ember, "main")
            for step in 0..<150 {
                let depth = Int(random.next() % UInt64(Limits.maxDepth + 2))
                let path = Self.path(depth: depth, &random)
                // The largest values that are valid, once each: a 10 MB string, a 10 MB priority.
                let value: Node =
                    switch step {
                    case 20: Node(.string(String(repeating: "s", count: Limits.maxStringBytes)))
                    case 70: Node(.int(1), priority: .string(String(repeating: "p", count: Limits.maxStringBytes)))
                    default: Self.value(&random, large: false)
                    }
                let answer: (DatabaseError?) -> Void = { error in
                    if error == nil { acknowledged += 1 } else { refused += 1 }
                }
                do {
                    let reference = try main.reference(path)
                    switch random.next() % 4 {
                    case 0 where depth > 0:
                        try reference.parent!.updateNodes([(Path(keys: [reference.path.back!]), value)], completion: answer)
                    case 1 where !value.containsServerValues:
                        // A priority at the limit, or one byte over, on what is there.
                        let length = step % 50 == 1 ? Limits.maxStringBytes + Int(random.next() % 2) : Int(random.next() % 100) + 1
                        try reference.setPriority(.string(String(repeating: "q", count: length)), completion: answer)
                    default:
                        try reference.setNode(value, completion: answer)
                    }
                } catch {
                    refused += 1
                }
                if step % 10 == 9 { try ember.flush() }
            }
            try ember.flush()
            before = ember.server.value(at: .root)
            try ember.close()
        }
        #expect(acknowledged > 20 && refused > 10, "the run tried both sides: \(acknowledged) acknowledged, \(refused) refused")
        let ember = try openEmber(directory, seed: seed)
        #expect(ember.server.value(at: .root) == before)
        // Read whole, every row passed a write's checks.
        #expect(ember.server.badRows.isEmpty)
        #expect(ember.notices.isEmpty)
    }
}
