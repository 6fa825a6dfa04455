import EmberCore
import EmberInstance
import EmberEngine
import EmberRules
import EmberServer
import EmberTestSupport
import EmberWire
import Testing

@Suite("Server indexes")
struct ServerIndexTests {
    @Test("a declared index answers its queries, stays in step with writes, and agrees with an unindexed server")
    func indexedAgreesWithUnindexed() throws {
        let clock = ManualClock()
        let rules = try Ruleset(text: #"{"rules":{"dinosaurs":{".indexOn":["height"]},"scores":{".indexOn":".value"}}}"#)
        let indexed = Server(clock: clock, rules: rules)
        let plain = Server(clock: clock)
        let queries = [
            QuerySpec(path: "dinosaurs", params: try QueryParams().orderedBy(.child("height")).limitedToLast(2)),
            QuerySpec(path: "dinosaurs", params: try QueryParams().orderedBy(.child("height")).startingAt(.int(3)).endingBefore(.int(9))),
            QuerySpec(path: "scores", params: try QueryParams().orderedBy(.value).limitedToFirst(3)),
        ]
        var random = SeededRandom(seed: 11)
        for step in 0..<300 {
            let key = ChildKey(unchecked: "k\(random.next() % 12)")
            let (path, value): (Path, Node)
            switch random.next() % 4 {
            case 0: (path, value) = (Path(keys: ["dinosaurs", key, "height"]), Node(.int(Int64(random.next() % 12))))
            case 1: (path, value) = (Path(keys: ["dinosaurs", key]), .empty)
            case 2: (path, value) = (Path(keys: ["scores", key]), Node(.double(Double(random.next() % 50) / 2)))
            default: (path, value) = (Path(keys: ["scores", key]), random.next() % 3 == 0 ? .empty : Node(.string("s\(random.next() % 5)")))
            }
            if step % 50 == 49 {
                // Whole-location writes rebuild the index.
                let location = Path(keys: [path.front!])
                try indexed.put(indexed.value(at: location), at: location, hash: nil)
            }
            try indexed.put(value, at: path, hash: nil)
            try plain.put(value, at: path, hash: nil)
            for query in queries {
                #expect(indexed.data(for: query) == plain.data(for: query), "step \(step): \(query)")
            }
        }
        #expect(indexed.builtIndexCount == 2)
        #expect(plain.builtIndexCount == 0)
    }

    /// Firebase scans for an order no rule indexes (and warns); Ember indexes it while a listen
    /// uses it, so that each write under a listened leaderboard costs O(log n), not a scan.
    @Test("a listened value or child order is indexed while listened, stays in step, and is dropped after; a get leaves none")
    func listenedOrdersAreIndexed() throws {
        let clock = ManualClock()
        let network = InProcessNetwork(clock: clock)
        let server = Server(clock: clock)
        let plain = Server(clock: clock)
        for key in 0..<40 {
            let value = Node(children: [(ChildKey(unchecked: "score"), Node(.int(Int64(key * 7 % 40))))])
            try server.put(value, at: Path(keys: ["board", ChildKey(unchecked: "k\(key)")]), hash: nil)
            try plain.put(value, at: Path(keys: ["board", ChildKey(unchecked: "k\(key)")]), hash: nil)
        }
        let top = QuerySpec(path: "board", params: try QueryParams().orderedBy(.child("score")).limitedToLast(3))
        let client = RawClient(network, server: server)
        client.send { .get(requestID: $0, query: top) }
        network.engine.runDue()
        #expect(server.builtIndexCount == 0)
        client.send { .listen(requestID: $0, query: top, tag: 1, hash: "") }
        client.send { .listen(requestID: $0, query: top, tag: 1, hash: "") }  // again: one listen
        network.engine.runDue()
        #expect(server.builtIndexCount == 1)
        var random = SeededRandom(seed: 7)
        for _ in 0..<200 {
            let path = Path(keys: ["board", ChildKey(unchecked: "k\(random.next() % 50)"), "score"])
            let value = random.next() % 5 == 0 ? Node.empty : Node(.int(Int64(random.next() % 100)))
            try server.put(value, at: path, hash: nil)
            try plain.put(value, at: path, hash: nil)
            #expect(server.data(for: top) == plain.data(for: top))
        }
        network.engine.runDue()
        // The client's view, fed by the window's changes, is the window.
        #expect(client.take().last?.hasPrefix("merge board tag 1") == true)
        client.send { .unlisten(requestID: $0, query: top, tag: 1) }
        network.engine.runDue()
        #expect(server.builtIndexCount == 0)
        // A declared index stays when its listens end.
        try server.setRules(try Ruleset(text: #"{"rules":{".read":true,".write":true,"board":{".indexOn":"score"}}}"#))
        client.send { .listen(requestID: $0, query: top, tag: 2, hash: "") }
        network.engine.runDue()
        client.send { .unlisten(requestID: $0, query: top, tag: 2) }
        network.engine.runDue()
        #expect(server.builtIndexCount == 1)
    }
}
