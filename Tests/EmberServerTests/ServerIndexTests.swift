import EmberCore
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
}
