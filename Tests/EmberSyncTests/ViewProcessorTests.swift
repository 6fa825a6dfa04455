import EmberCore
import EmberTestSupport
import Testing

@testable import EmberSync

@Suite("ViewProcessor")
struct ViewProcessorTests {
    /// The changes as text, in order, so that two lists compare whole.
    /// The same node in storage of its own (equal, never identical).
    private func rebuilt(_ node: Node) -> Node {
        try! Node(jsonText: node.jsonString(.export))
    }

    /// A random server operation on the children `k0`…`k11` of the view's location: a child set,
    /// removed or changed deep, its priority set, a merge of a few children, or (rarely) the
    /// whole location replaced.
    private func randomOperation(_ random: inout SeededRandom) -> Operation {
        func key() -> ChildKey { ChildKey(unchecked: "k\(random.next() % 12)") }
        func value() -> Node {
            switch random.next() % 4 {
            case 0: Node(.int(Int64(random.next() % 50)))
            case 1: Node(.string("s\(random.next() % 9)"))
            default: try! Node(jsonText: #"{"a":\#(random.next() % 5),"b":"\#(random.next() % 3)"}"#)
            }
        }
        switch random.next() % 10 {
        case 0, 1, 2: return .overwrite(.server, Path(keys: [key()]), value())
        case 3: return .overwrite(.server, Path(keys: [key()]), .empty)
        case 4: return .overwrite(.server, Path(keys: [key(), ChildKey("a")]), Node(.int(Int64(random.next() % 5))))
        case 5: return .overwrite(.server, Path(keys: [key(), .priority]), Node(.int(Int64(random.next() % 3))))
        case 6, 7:
            var merge = ImmutableTree<Node>()
            for _ in 0..<(1 + random.next() % 3) { merge = merge.setting(value(), at: Path(keys: [key()])) }
            return .merge(.server, .root, merge)
        case 8: return .overwrite(.server, .root, Node(children: (0..<Int(random.next() % 6)).map { _ in (key(), value()) }))
        default: return .overwrite(.server, .root, Node(.int(Int64(random.next() % 3))))
        }
    }

    @Test(
        "server changes to an unfiltered view with no pending write are applied once to the caches' one node, with the changes the general path makes",
        arguments: [1, 2, 3, 4, 5])
    func sharedCachesMatchTheGeneralPath(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let processor = ViewProcessor(filter: NodeFilter(QueryParams()))
        let writes = WriteTreeRef(path: .root, tree: WriteTree())
        let initial = Node(children: (0..<8).map { (ChildKey(unchecked: "k\($0)"), Node(.int(Int64($0)))) })
        // Event and server caches holding one node (as a view made over complete server data
        // with no write starts), and the same data in two nodes (the general path each time).
        var shared = ViewCache(eventCache: CacheNode(initial, .complete, .whole), serverCache: CacheNode(initial, .complete, .whole))
        var separate = ViewCache(
            eventCache: CacheNode(rebuilt(initial), .complete, .whole), serverCache: CacheNode(initial, .complete, .whole))
        #expect(shared.eventCache.node.isKnownEqual(to: shared.serverCache.node))
        #expect(!separate.eventCache.node.isKnownEqual(to: separate.serverCache.node))
        for step in 0..<400 {
            let operation = randomOperation(&random)
            let sharedChanges = processor.apply(operation, to: &shared, writes: writes, completeCache: nil)
            let separateChanges = processor.apply(operation, to: &separate, writes: writes, completeCache: nil)
            #expect(sharedChanges.rendered == separateChanges.rendered, "step \(step): \(operation)")
            #expect(shared.eventCache.node == separate.eventCache.node, "step \(step): the event data")
            #expect(shared.serverCache.node == separate.serverCache.node, "step \(step): the server data")
            #expect(shared.eventCache.node == shared.serverCache.node, "step \(step): no write, so the event data is the server's")
            // Still one node (a priority change at the location itself takes the general path
            // and makes two; a whole-node update makes them one again).
            if case .overwrite(_, let path, _) = operation, path.front == .priority { continue }
            #expect(shared.eventCache.node.isKnownEqual(to: shared.serverCache.node), "step \(step): still one node")
            // The general path's event data stays a node of its own.
            separate.eventCache.node = rebuilt(separate.eventCache.node)
        }
    }

    @Test("a pending write keeps the event data apart: the server change under it raises nothing, and the server data changes alone")
    func pendingWriteTakesTheGeneralPath() {
        let processor = ViewProcessor(filter: NodeFilter(QueryParams()))
        let initial = node(#"{"a":1,"b":2}"#)
        var cache = ViewCache(eventCache: CacheNode(initial, .complete, .whole), serverCache: CacheNode(initial, .complete, .whole))
        var tree = WriteTree()
        tree.addOverwrite(node("5"), at: "a", id: WriteID(1), visibility: .visible)
        let writes = WriteTreeRef(path: .root, tree: tree)
        _ = processor.apply(.overwrite(.user, "a", node("5")), to: &cache, writes: writes, completeCache: nil)
        let changes = processor.apply(.overwrite(.server, "a", node("7")), to: &cache, writes: writes, completeCache: nil)
        #expect(changes.rendered.isEmpty)
        #expect(cache.eventCache.node == node(#"{"a":5,"b":2}"#))
        #expect(cache.serverCache.node == node(#"{"a":7,"b":2}"#))
        // A change beside the write reaches the event data (the general path).
        let beside = processor.apply(.overwrite(.server, "b", node("3")), to: &cache, writes: writes, completeCache: nil)
        #expect(beside.rendered == ["changed b = 3 (was 2)", #"value = {"a":5,"b":3}"#])
        #expect(cache.eventCache.node == node(#"{"a":5,"b":3}"#))
    }
}
