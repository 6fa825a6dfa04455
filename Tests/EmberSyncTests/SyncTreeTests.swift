import EmberCore
import EmberSync
import EmberTestSupport
import Testing

@Suite("SyncTree beyond the shared spec")
struct SyncTreeTests {
    let items: Path = "items"

    @Test("a user write shadows server data: the server's echo and the ack raise nothing")
    func echoOfOptimisticWrite() {
        var tree = SyncTree(listenProvider: RecordingListenProvider())
        _ = tree.addEventRegistration(listener(1), for: .default(at: items))
        #expect(render(tree.applyServerOverwrite(node(#"{"a":1,"b":2}"#), at: items)) == [
            "1 child_added a after - = 1", "1 child_added b after a = 2", #"1 value = {"a":1,"b":2}"#,
        ])
        #expect(render(tree.applyUserOverwrite(node("3"), at: "items/b", writeID: WriteID(0))) == [
            "1 child_changed b after a = 3", #"1 value = {"a":1,"b":3}"#,
        ])
        #expect(tree.applyServerOverwrite(node("3"), at: "items/b").isEmpty)
        #expect(tree.ackUserWrite(WriteID(0), outcome: .confirmed).isEmpty)
        // The server's data is now the truth: a later change shows.
        #expect(render(tree.applyServerOverwrite(node("4"), at: "items/b")) == [
            "1 child_changed b after a = 4", #"1 value = {"a":1,"b":4}"#,
        ])
    }

    @Test("a shadowed server change shows once the write is acknowledged")
    func serverChangeUnderWrite() {
        var tree = SyncTree(listenProvider: RecordingListenProvider())
        _ = tree.addEventRegistration(listener(1), for: .default(at: items))
        _ = tree.applyServerOverwrite(node(#"{"a":1}"#), at: items)
        _ = tree.applyUserOverwrite(node("2"), at: "items/a", writeID: WriteID(0))
        #expect(tree.applyServerOverwrite(node("5"), at: "items/a").isEmpty)
        #expect(render(tree.ackUserWrite(WriteID(0), outcome: .confirmed)) == [
            "1 child_changed a after - = 5", #"1 value = {"a":5}"#,
        ])
    }

    @Test("a revert restores exactly the view from before the write, with events")
    func revertRestoresView() {
        var tree = SyncTree(listenProvider: RecordingListenProvider())
        _ = tree.addEventRegistration(listener(1), for: .default(at: items))
        let window = QuerySpec(path: items, params: try! QueryParams().limitedToFirst(2))
        _ = tree.addEventRegistration(listener(2), for: window)
        _ = tree.applyServerOverwrite(node(#"{"b":2,"c":3,"d":4}"#), at: items)
        #expect(render(tree.applyUserOverwrite(node("1"), at: "items/a", writeID: WriteID(0))) == [
            "2 child_removed c = 3", "2 child_added a after - = 1", #"2 value = {"a":1,"b":2}"#,
            "1 child_added a after - = 1", #"1 value = {"a":1,"b":2,"c":3,"d":4}"#,
        ].sortedByListener(order: [1, 2]))
        #expect(render(tree.ackUserWrite(WriteID(0), outcome: .reverted)) == [
            "2 child_removed a = 1", "2 child_added c after b = 3", #"2 value = {"b":2,"c":3}"#,
            "1 child_removed a = 1", #"1 value = {"b":2,"c":3,"d":4}"#,
        ].sortedByListener(order: [1, 2]))
    }

    @Test("a revert of a write over a location nobody had data for removes what it showed")
    func revertWithoutServerData() {
        var tree = SyncTree(listenProvider: RecordingListenProvider())
        _ = tree.addEventRegistration(listener(1), for: .default(at: items))
        #expect(render(tree.applyUserOverwrite(node(#"{"x":true}"#), at: items, writeID: WriteID(0))) == [
            "1 child_added x after - = true", #"1 value = {"x":true}"#,
        ])
        #expect(render(tree.ackUserWrite(WriteID(0), outcome: .reverted)) == ["1 child_removed x = true"])
    }

    @Test("limitToFirst and limitToLast windows refill when children leave")
    func windowsRefill() {
        var tree = SyncTree(listenProvider: RecordingListenProvider())
        _ = tree.addEventRegistration(listener(1), for: .default(at: items))
        let first = QuerySpec(path: items, params: try! QueryParams().limitedToFirst(2))
        let last = QuerySpec(path: items, params: try! QueryParams().limitedToLast(2))
        _ = tree.addEventRegistration(listener(2), for: first)
        _ = tree.addEventRegistration(listener(3), for: last)
        _ = tree.applyServerOverwrite(node(#"{"a":1,"b":2,"c":3,"d":4,"e":5}"#), at: items)
        let removeA = render(tree.applyServerOverwrite(.empty, at: "items/a"))
        #expect(removeA.filter { $0.hasPrefix("2 ") } == [
            "2 child_removed a = 1", "2 child_added c after b = 3", #"2 value = {"b":2,"c":3}"#,
        ])
        #expect(removeA.filter { $0.hasPrefix("3 ") }.isEmpty)
        let removeE = render(tree.applyServerOverwrite(.empty, at: "items/e"))
        #expect(removeE.filter { $0.hasPrefix("3 ") } == [
            "3 child_removed e = 5", "3 child_added c after - = 3", #"3 value = {"c":3,"d":4}"#,
        ])
        #expect(removeE.filter { $0.hasPrefix("2 ") }.isEmpty)
        // A child outside the first window coming and going does not change it.
        _ = tree.applyServerOverwrite(node("9"), at: "items/f")
        let removeF = render(tree.applyServerOverwrite(.empty, at: "items/f"))
        #expect(removeF.filter { !$0.hasPrefix("3 ") } == ["1 child_removed f = 9", #"1 value = {"b":2,"c":3,"d":4}"#])
    }

    @Test("a window refills from a user write, and a deletion by user write pulls the next child in")
    func windowRefillsThroughWrites() {
        var tree = SyncTree(listenProvider: RecordingListenProvider())
        _ = tree.addEventRegistration(listener(1), for: .default(at: items))
        let last = QuerySpec(path: items, params: try! QueryParams().orderedBy(.child("score")).limitedToLast(2))
        _ = tree.addEventRegistration(listener(2), for: last)
        _ = tree.applyServerOverwrite(
            node(#"{"ann":{"score":5},"bob":{"score":9},"cy":{"score":7},"dee":{"score":1}}"#), at: items)
        let events = render(tree.applyUserOverwrite(.empty, at: "items/bob", writeID: WriteID(0)))
        #expect(events.filter { $0.hasPrefix("2 ") } == [
            #"2 child_removed bob = {"score":9}"#, #"2 child_added ann after - = {"score":5}"#,
            #"2 value = {"ann":{"score":5},"cy":{"score":7}}"#,
        ])
        let raise = render(tree.applyUserOverwrite(node("8"), at: "items/dee/score", writeID: WriteID(1)))
        #expect(raise.filter { $0.hasPrefix("2 ") } == [
            #"2 child_removed ann = {"score":5}"#, #"2 child_added dee after cy = {"score":8}"#,
            #"2 value = {"cy":{"score":7},"dee":{"score":8}}"#,
        ])
    }

    @Test("startAfter and endBefore exclude their bounds, and children crossing them come and go")
    func exclusiveBounds() {
        var tree = SyncTree(listenProvider: RecordingListenProvider())
        _ = tree.addEventRegistration(listener(1), for: .default(at: items))
        let byKey = QuerySpec(path: items, params: try! QueryParams().orderedBy(.key).startingAfter(.string("b")).endingBefore(.string("e")))
        let byScore = QuerySpec(
            path: items, params: try! QueryParams().orderedBy(.child("n")).startingAfter(.int(1)).endingBefore(.int(4)))
        _ = tree.addEventRegistration(listener(2), for: byKey)
        _ = tree.addEventRegistration(listener(3), for: byScore)
        let load = render(tree.applyServerOverwrite(
            node(#"{"a":{"n":1},"b":{"n":2},"c":{"n":3},"d":{"n":4},"e":{"n":5}}"#), at: items))
        #expect(load.filter { $0.hasPrefix("2 ") } == [
            #"2 child_added c after - = {"n":3}"#, #"2 child_added d after c = {"n":4}"#,
            #"2 value = {"c":{"n":3},"d":{"n":4}}"#,
        ])
        #expect(load.filter { $0.hasPrefix("3 ") } == [
            #"3 child_added b after - = {"n":2}"#, #"3 child_added c after b = {"n":3}"#,
            #"3 value = {"b":{"n":2},"c":{"n":3}}"#,
        ])
        // d's score drops to 1.5 (inside 1 < n < 4); b's rises to 4 (the excluded end).
        let moves = render(tree.applyServerMerge([("d/n", node("1.5")), ("b/n", node("4"))], at: items))
        #expect(moves.filter { $0.hasPrefix("3 ") } == [
            #"3 child_removed b = {"n":2}"#, #"3 child_added d after - = {"n":1.5}"#,
            #"3 value = {"c":{"n":3},"d":{"n":1.5}}"#,
        ])
        #expect(moves.filter { $0.hasPrefix("2 ") } == [
            #"2 child_changed d after c = {"n":1.5}"#, #"2 value = {"c":{"n":3},"d":{"n":1.5}}"#,
        ])
    }

    @Test("merges that touch only unlistened locations raise nothing")
    func unrelatedMerges() {
        var tree = SyncTree(listenProvider: RecordingListenProvider())
        _ = tree.addEventRegistration(listener(1), for: .default(at: "a"))
        _ = tree.addEventRegistration(listener(2), for: QuerySpec(path: "b", params: try! QueryParams().limitedToFirst(1)))
        _ = tree.applyServerOverwrite(node(#"{"x":1}"#), at: "a")
        _ = tree.applyTaggedQueryOverwrite(node(#"{"y":1}"#), at: "b", tag: QueryTag(1))
        #expect(tree.applyServerMerge([("c/x", node("1")), ("d", node("2"))], at: .root).isEmpty)
        #expect(tree.applyUserMerge([("c/x", node("1")), ("e", node("2"))], at: .root, writeID: WriteID(0)).isEmpty)
        #expect(tree.applyServerMerge([("a/x", node("1"))], at: .root).isEmpty, "unchanged data raises nothing either")
        #expect(tree.ackUserWrite(WriteID(0), outcome: .confirmed).isEmpty)
        #expect(tree.ackUserWrite(WriteID(0), outcome: .reverted).isEmpty, "an unknown write is ignored")
    }

    @Test("tagged data reaches only its query; an unknown tag changes nothing")
    func taggedIsolation() {
        var tree = SyncTree(listenProvider: RecordingListenProvider())
        let window = QuerySpec(path: items, params: try! QueryParams().limitedToLast(1))
        let range = QuerySpec(path: items, params: try! QueryParams().orderedBy(.key).startingAt(.string("m")))
        _ = tree.addEventRegistration(listener(1), for: window)
        _ = tree.addEventRegistration(listener(2), for: range)
        #expect(tree.tag(for: window) == QueryTag(1))
        #expect(tree.tag(for: range) == QueryTag(2))
        #expect(tree.listenProvider.active.count == 2)
        #expect(render(tree.applyTaggedQueryOverwrite(node(#"{"z":1}"#), at: items, tag: QueryTag(1))) == [
            "1 child_added z after - = 1", #"1 value = {"z":1}"#,
        ])
        #expect(tree.applyTaggedQueryOverwrite(node("1"), at: "items/q", tag: QueryTag(9)).isEmpty)
        #expect(tree.applyTaggedQueryOverwrite(node("1"), at: "elsewhere", tag: QueryTag(2)).isEmpty)
        _ = tree.removeEventRegistration(RegistrationID(1), for: window)
        #expect(tree.tag(for: window) == nil)
        #expect(tree.applyTaggedQueryOverwrite(node(#"{"y":1}"#), at: items, tag: QueryTag(1)).isEmpty)
        #expect(tree.listenProvider.active.map(\.query) == [range])
        #expect(tree.listenProvider.violations.isEmpty)
    }

    @Test("overlapping queries at one location stay consistent through random changes")
    func overlappingQueriesStayConsistent() throws {
        var random = SeededRandom(seed: 2026)
        let queries: [QuerySpec] = [
            .default(at: items),
            QuerySpec(path: items, params: try QueryParams().orderedBy(.child("score")).limitedToLast(3)),
            QuerySpec(path: items, params: try QueryParams().orderedBy(.key).startingAt(.string("c")).endingAt(.string("h"))),
            QuerySpec(path: items, params: try QueryParams().orderedBy(.value).limitedToFirst(2)),
        ]
        var tree = SyncTree(listenProvider: RecordingListenProvider())
        var seen: [[ChildKey: Node]] = Array(repeating: [:], count: queries.count)
        var lastValue: [Node?] = Array(repeating: nil, count: queries.count)
        func record(_ events: [Event]) {
            for event in events {
                let listener = event.registration.rawValue
                switch event.kind {
                case .childAdded(let key, let node, _), .childChanged(let key, let node, _):
                    seen[listener][key] = node
                case .childRemoved(let key, _):
                    seen[listener][key] = nil
                case .value(let node):
                    lastValue[listener] = node
                case .childMoved, .cancelled:
                    break
                }
            }
        }
        for (index, query) in queries.enumerated() {
            record(tree.addEventRegistration(listener(index), for: query))
        }
        var server = Node.empty
        server.set(node(#"{"a":1,"c":{"score":3},"f":{"score":8},"h":2}"#), at: items)
        record(tree.applyServerOverwrite(server.child(at: items), at: items))
        var pending: [(WriteID, Path, Node)] = []
        var nextWrite = 0
        let keys = "abcdefghij".map { ChildKey(unchecked: String($0)) }
        for step in 0..<400 {
            let key = keys[Int(random.next() % UInt64(keys.count))]
            let value: Node
            switch random.next() % 4 {
            case 0: value = .empty
            case 1: value = Node(.int(Int64(random.next() % 20)))
            default: value = Node(children: [(ChildKey("score"), Node(.int(Int64(random.next() % 20))))])
            }
            let path = items.child(key)
            switch random.next() % 3 {
            case 0:
                server.set(value, at: path)
                record(tree.applyServerOverwrite(value, at: path))
            case 1:
                let id = WriteID(nextWrite)
                nextWrite += 1
                pending.append((id, path, value))
                record(tree.applyUserOverwrite(value, at: path, writeID: id))
            default:
                guard !pending.isEmpty else { continue }
                let (id, path, value) = pending.removeFirst()
                if random.next() % 2 == 0 {
                    server.set(value, at: path)
                    record(tree.applyServerOverwrite(value, at: path))
                    record(tree.ackUserWrite(id, outcome: .confirmed))
                } else {
                    record(tree.ackUserWrite(id, outcome: .reverted))
                }
            }
            // What every listener should see: the server's data with the pending writes.
            var visible = server
            for (_, path, value) in pending { visible.set(value, at: path) }
            let location = visible.child(at: items)
            for (index, query) in queries.enumerated() {
                let expected = query.params.filteredNode(location)
                let fromChildEvents = Node(children: seen[index].map { ($0.key, $0.value) })
                #expect(fromChildEvents == expected, "step \(step), query \(query): child events")
                #expect(lastValue[index] == expected, "step \(step), query \(query): value event")
            }
        }
    }
}

extension Array where Element == String {
    /// The lines grouped by listener (the number before the first space) in `order`, keeping
    /// their order within each listener.
    func sortedByListener(order: [Int]) -> [String] {
        order.flatMap { id in filter { $0.hasPrefix("\(id) ") } }
    }
}
