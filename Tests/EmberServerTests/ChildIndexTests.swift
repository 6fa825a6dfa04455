import EmberCore
import EmberServer
import EmberTestSupport
import Testing

@Suite struct ChildIndexTests {
    private let dinosaurs = try! Node(jsonText: #"""
        {
          "bruhathkayosaurus": {"appeared": -70000000, "height": 25, "length": 44, "order": "saurischia", "vanished": -70000000, "weight": 135000, "ratings": {"pos": 1}},
          "lambeosaurus": {"appeared": -76000000, "height": 2.1, "length": 12.5, "order": "ornithischia", "vanished": -75000000, "weight": 5000, "ratings": {"pos": 2}},
          "linhenykus": {"appeared": -85000000, "height": 0.6, "length": 1, "order": "theropoda", "vanished": -75000000, "weight": 3, "ratings": {"pos": 3}},
          "pterodactyl": {"appeared": -150000000, "height": 0.6, "length": 0.8, "order": "pterosauria", "vanished": -148500000, "weight": 2, "ratings": {"pos": 4}},
          "stegosaurus": {"appeared": -155000000, "height": 4, "length": 9, "order": "ornithischia", "vanished": -150000000, "weight": 2500, "ratings": {"pos": 5}},
          "triceratops": {"appeared": -68000000, "height": 3, "length": 8, "order": "ornithischia", "vanished": -66000000, "weight": 11000, "ratings": {"pos": 6}}
        }
        """#)

    private let scores = try! Node(jsonText: #"""
        {"bruhathkayosaurus": 55, "lambeosaurus": 21, "linhenykus": 80, "pterodactyl": 93, "stegosaurus": 5, "triceratops": 22}
        """#)

    /// The keys the index returns, after checking that they are what a scan returns.
    private func keys(_ index: ChildIndex, _ params: QueryParams, _ node: Node) -> [String] {
        let answer = index.query(params)
        #expect(answer == params.filter(node), "\(params)")
        return answer.map(\.key.name)
    }

    @Test func dinosaursByHeight() throws {
        let byHeight = ChildIndex(.child("height"), children: dinosaurs)
        let query = try QueryParams().orderedBy(.child("height"))
        #expect(byHeight.index == .child("height"))
        #expect(byHeight.count == 6)
        #expect(keys(byHeight, query, dinosaurs) == ["linhenykus", "pterodactyl", "lambeosaurus", "triceratops", "stegosaurus", "bruhathkayosaurus"])
        #expect(keys(byHeight, try query.limitedToLast(2), dinosaurs) == ["stegosaurus", "bruhathkayosaurus"])
        #expect(keys(byHeight, try query.limitedToFirst(2), dinosaurs) == ["linhenykus", "pterodactyl"])
        #expect(keys(byHeight, try query.limitedToFirst(10), dinosaurs).count == 6)
        #expect(keys(byHeight, try query.limitedToLast(10), dinosaurs).count == 6)
        #expect(keys(byHeight, try query.startingAt(.double(3.5)), dinosaurs) == ["stegosaurus", "bruhathkayosaurus"])
        #expect(keys(byHeight, try query.endingAt(.double(3.5)), dinosaurs) == ["linhenykus", "pterodactyl", "lambeosaurus", "triceratops"])
        #expect(keys(byHeight, try query.startingAt(.double(2.5)).endingAt(.int(5)), dinosaurs) == ["triceratops", "stegosaurus"])
        #expect(keys(byHeight, try query.equalTo(.double(0.6)), dinosaurs) == ["linhenykus", "pterodactyl"])
        #expect(keys(byHeight, try query.equalTo(.double(0.6), key: "pterodactyl"), dinosaurs) == ["pterodactyl"])
        #expect(keys(byHeight, try query.startingAfter(.double(0.6), key: "linhenykus").limitedToFirst(2), dinosaurs) == ["pterodactyl", "lambeosaurus"])
        #expect(keys(byHeight, try query.endingBefore(.double(0.6), key: "pterodactyl"), dinosaurs) == ["linhenykus"])
        #expect(keys(byHeight, try query.startingAfter(.double(0.6)).endingBefore(.int(4)), dinosaurs) == ["lambeosaurus", "triceratops"])
        #expect(keys(byHeight, try query.startingAt(.string("tall")), dinosaurs) == [])
        #expect(keys(byHeight, try query.endingAt(nil), dinosaurs) == [])
    }

    @Test func dinosaursByNestedChildAndScoresByValue() throws {
        let byPosition = ChildIndex(.child("ratings/pos"), children: dinosaurs)
        let query = try QueryParams().orderedBy(.child("ratings/pos"))
        #expect(keys(byPosition, try query.startingAt(.int(4)), dinosaurs) == ["pterodactyl", "stegosaurus", "triceratops"])

        let byValue = ChildIndex(.value, children: scores)
        let values = try QueryParams().orderedBy(.value)
        #expect(keys(byValue, values, scores) == ["stegosaurus", "lambeosaurus", "triceratops", "bruhathkayosaurus", "linhenykus", "pterodactyl"])
        #expect(keys(byValue, try values.limitedToLast(2), scores) == ["linhenykus", "pterodactyl"])
        #expect(keys(byValue, try values.startingAfter(.int(21)).endingBefore(.int(80)), scores) == ["triceratops", "bruhathkayosaurus"])
    }

    @Test func updatesFollowTheLocation() throws {
        var node = dinosaurs
        var byHeight = ChildIndex(.child("height"), children: node)
        let tallest = try QueryParams().orderedBy(.child("height")).limitedToLast(2)

        func set(_ key: ChildKey, _ child: Node) {
            byHeight.update(key, from: node.child(key), to: child)
            node.setChild(key, child)
        }

        set("triceratops", node.child("triceratops").updatingChild("height", Node(.int(30))))
        #expect(keys(byHeight, tallest, node) == ["bruhathkayosaurus", "triceratops"])
        set("bruhathkayosaurus", .empty)
        #expect(keys(byHeight, tallest, node) == ["stegosaurus", "triceratops"])
        // A change that keeps the height still hands back the new child.
        set("stegosaurus", node.child("stegosaurus").updatingChild("weight", Node(.int(1))))
        #expect(keys(byHeight, tallest, node) == ["stegosaurus", "triceratops"])
        #expect(byHeight.query(tallest).first?.node.child("weight") == Node(.int(1)))
        set("rex", try Node(jsonText: #"{"height": 12}"#))
        #expect(keys(byHeight, tallest, node) == ["rex", "triceratops"])
        // Losing the child makes it null, which sorts first.
        set("rex", Node(.string("gone")))
        #expect(keys(byHeight, try QueryParams().orderedBy(.child("height")).limitedToFirst(1), node) == ["rex"])
        #expect(byHeight.count == 6)
    }

    @Test func emptyAndLeafLocationsHaveNoChildren() throws {
        let query = try QueryParams().orderedBy(.value).limitedToFirst(3)
        for location in [Node.empty, Node(.int(5))] {
            let index = ChildIndex(.value, children: location)
            #expect(index.isEmpty)
            #expect(index.query(query).isEmpty)
        }
    }

    // MARK: Differential test against QueryParams.filter

    private static let keyPool: [String] =
        (0..<60).map(String.init) + ["07", "-3", "-1", "2147483648", "a", "b", "B", "aa", "ab", "z", "é", "\u{1F600}", "~"]
    private static let strings = ["", "a", "b", "ab", "B", "1", "é", "\u{1F600}"]
    private static let indexes: [Index] = [.value, .child("h"), .child("r/p")]

    /// A value to order by: null (a missing child), or a leaf drawn from small pools so that
    /// values tie often, or an object.
    private static func orderedValue(_ random: inout SeededRandom) -> Node {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return .empty
        case 1: return Node(.bool(Bool.random(using: &random)))
        case 2, 3: return Node(.int(Int64.random(in: -3...6, using: &random)))
        case 4: return Node(LeafValue(normalizing: Double(Int.random(in: -6...12, using: &random)) / 2)!)
        case 5, 6: return Node(.string(strings[Int.random(in: 0..<strings.count, using: &random)]))
        case 7: return Node(.int(Int64.random(in: Int64.min...Int64.max, using: &random)))
        default: return Node(children: [(ChildKey("x"), Node(.int(Int64.random(in: 0...2, using: &random))))])
        }
    }

    /// A child: a bare value (which has no `h`), or an object with `h`, `r/p` and other data.
    private static func child(_ random: inout SeededRandom) -> Node {
        if Int.random(in: 0..<4, using: &random) == 0 {
            let node = orderedValue(&random)
            return node.isEmpty ? Node(.int(0)) : node
        }
        var node = Node.empty
        node.setChild("h", orderedValue(&random))
        node.set(orderedValue(&random), at: "r/p")
        node.setChild("other", Node(.int(Int64.random(in: 0...1_000, using: &random))))
        if Int.random(in: 0..<5, using: &random) == 0 {
            node = node.withPriority(.number(Double(Int.random(in: 0...3, using: &random))))
        }
        return node
    }

    private static func bound(_ random: inout SeededRandom) -> LeafValue? {
        switch Int.random(in: 0..<9, using: &random) {
        case 0: return nil
        case 1: return .bool(Bool.random(using: &random))
        case 2, 3: return .int(Int64.random(in: -4...7, using: &random))
        case 4: return LeafValue(normalizing: Double(Int.random(in: -7...13, using: &random)) / 2)!
        case 5: return .int(Int64.random(in: 0...1, using: &random) == 0 ? .min : .max)
        default: return .string(strings[Int.random(in: 0..<strings.count, using: &random)] + (Bool.random(using: &random) ? "" : "a"))
        }
    }

    private static func boundKey(_ random: inout SeededRandom) -> ChildKey? {
        Bool.random(using: &random) ? nil : ChildKey(unchecked: keyPool[Int.random(in: 0..<keyPool.count, using: &random)])
    }

    private static func query(_ index: Index, _ random: inout SeededRandom) throws -> QueryParams {
        var params = try QueryParams().orderedBy(index)
        if Int.random(in: 0..<6, using: &random) == 0 {
            params = try params.equalTo(bound(&random), key: boundKey(&random))
        } else {
            switch Int.random(in: 0..<3, using: &random) {
            case 0: params = try params.startingAt(bound(&random), key: boundKey(&random))
            case 1: params = try params.startingAfter(bound(&random), key: boundKey(&random))
            default: break
            }
            switch Int.random(in: 0..<3, using: &random) {
            case 0: params = try params.endingAt(bound(&random), key: boundKey(&random))
            case 1: params = try params.endingBefore(bound(&random), key: boundKey(&random))
            default: break
            }
        }
        switch Int.random(in: 0..<3, using: &random) {
        case 0: params = try params.limitedToFirst(Int.random(in: 1...8, using: &random))
        case 1: params = try params.limitedToLast(Int.random(in: 1...8, using: &random))
        default: break
        }
        return params
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func answersLikeAScan(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var node = Node.empty
        // Start from a location of random size (up to several B-tree levels), then change it.
        for _ in 0..<Int.random(in: 0...Self.keyPool.count, using: &random) {
            node.setChild(ChildKey(unchecked: Self.keyPool[Int.random(in: 0..<Self.keyPool.count, using: &random)]), Self.child(&random))
        }
        var indexes = Self.indexes.map { ChildIndex($0, children: node) }
        var queries = 0
        for step in 0..<100 {
            for index in indexes {
                #expect(index.count == node.childCount)
                #expect(index.keys.map(\.key) == node.children(in: index.index).map(\.key), "step \(step)")
                for _ in 0..<12 {
                    let params = try Self.query(index.index, &random)
                    let answer = index.query(params)
                    let expected = params.filter(node)
                    #expect(answer == expected, "seed \(seed) step \(step): \(params)")
                    if answer != expected { return }
                    queries += 1
                }
            }
            // One random change: insert, replace, change below a child, or remove.
            let key = ChildKey(unchecked: Self.keyPool[Int.random(in: 0..<Self.keyPool.count, using: &random)])
            let old = node.child(key)
            let new: Node
            switch Int.random(in: 0..<5, using: &random) {
            case 0: new = .empty
            case 1 where !old.isEmpty && !old.isLeaf: new = old.updatingChild("other", Node(.int(Int64(step))))
            case 2 where !old.isEmpty && !old.isLeaf: new = old.updatingChild("h", Self.orderedValue(&random))
            default: new = Self.child(&random)
            }
            for position in indexes.indices { indexes[position].update(key, from: old, to: new) }
            node.setChild(key, new)
        }
        #expect(queries > 1_000)
    }
}
