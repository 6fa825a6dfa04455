import EmberCore
import EmberTestSupport
import Testing

/// Properties over random trees, each run with fixed seeds so failures reproduce.
@Suite struct PropertyTests {
    static let seeds: [UInt64] = Array(1...40)

    @Test(arguments: seeds)
    func exportFormRoundTrips(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let node = RandomTree.node(&random, depth: 5)
        for pretty in [false, true] {
            let text = node.jsonString(.export, pretty: pretty)
            #expect(try Node(jsonText: text) == node, "\(text)")
        }
    }

    @Test(arguments: seeds)
    func normalFormRoundTripsWithoutPriorities(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let node = RandomTree.node(&random, depth: 5)
        let text = node.jsonString()
        let parsed = try Node(jsonText: text)
        #expect(parsed == node.withoutPriorities, "\(text)")
        // Writing again gives the same text: normal form is stable.
        #expect(parsed.jsonString() == text)
        #expect(try JSONValue(parsing: text).serialized() == text)
        #expect(node.jsonValue() == (try JSONValue(parsing: text)))
    }

    @Test(arguments: seeds)
    func childrenComeInReferenceOrder(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var node = Node.empty
        // A set of bytes, not of Strings: Swift's String equality would merge "é" and "e\u{301}".
        var names = Set<[UInt8]>()
        for _ in 0..<300 {
            let name: String
            switch Int.random(in: 0..<4, using: &random) {
            case 0: name = String(Int.random(in: -3000...3000, using: &random))
            case 1: name = RandomTree.keyPool.randomElement(using: &random)!
            case 2: name = "0" + String(Int.random(in: 0...99, using: &random))
            default: name = String((0..<Int.random(in: 1...4, using: &random)).map { _ in "aZ_-é\u{1F600}\u{E000}9".randomElement(using: &random)! })
            }
            names.insert(Array(name.utf8))
            node.setChild(ChildKey(unchecked: name), Node(.int(1)))
        }
        let expected = names.map { String(decoding: $0, as: UTF8.self) }.sorted(by: Self.referenceKeyOrder)
        #expect(node.children.map { Array($0.key.name.utf8) } == expected.map { Array($0.utf8) })
    }

    /// The rule of firebase-semantics.md §6.3, written independently of ``ChildKey``.
    static func referenceKeyOrder(_ a: String, _ b: String) -> Bool {
        func asInt(_ s: String) -> Int64? {
            let body = s.hasPrefix("-") ? s.dropFirst() : Substring(s)
            guard !body.isEmpty, body.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            let digits = s.drop { $0 == "-" }.drop { $0 == "0" }
            guard digits.count <= 10 else { return nil }
            guard let value = Int64(s.hasPrefix("-") ? "-" + (digits.isEmpty ? "0" : digits) : (digits.isEmpty ? "0" : String(digits))),
                value >= Int64(Int32.min), value <= Int64(Int32.max) else { return nil }
            return value
        }
        switch (asInt(a), asInt(b)) {
        case (let x?, let y?): return x != y ? x < y : (a.utf8.count != b.utf8.count ? a.utf8.count < b.utf8.count : Array(a.utf16).lexicographicallyPrecedes(Array(b.utf16)))
        case (_?, nil): return true
        case (nil, _?): return false
        case (nil, nil): return Array(a.utf16).lexicographicallyPrecedes(Array(b.utf16))
        }
    }

    @Test(arguments: seeds)
    func deepUpdateChangesOnlyThatPath(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let original = RandomTree.node(&random, depth: 5)
        var path = Path.root
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            path = path.child(ChildKey(unchecked: RandomTree.keyPool.randomElement(using: &random)!))
        }
        let value = Node(.string("new"))
        let updated = original.updating(at: path, value)
        #expect(updated.child(at: path) == value)
        // Every ancestor-sibling subtree is unchanged, and nothing else appears.
        var prefix = Path.root
        for key in path.keys {
            let before = original.child(at: prefix), after = updated.child(at: prefix)
            for child in after.children where child.key != key {
                #expect(before.child(child.key) == child.node, "\(prefix.child(child.key))")
            }
            for child in before.children where child.key != key && before.isLeaf == false {
                #expect(after.hasChild(child.key))
            }
            prefix = prefix.child(key)
        }
        // Removing it again restores the original outside the path.
        #expect(original.child(at: path).isEmpty || updated.updating(at: path, original.child(at: path)) == original)
    }

    @Test(arguments: seeds)
    func priorityOrderMatchesASort(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var node = Node.empty
        for index in 0..<200 {
            let priority = RandomTree.priority(&random)
            node.setChild(ChildKey(unchecked: "k\(Int.random(in: 0..<150, using: &random))"), Node(.int(Int64(index)), priority: priority))
        }
        let expected = node.children.map { $0 }.sorted { Index.priority.compare($0, $1) < 0 }
        #expect(QueryParams.default.filter(node).map(\.key) == expected.map(\.key))
        #expect(node.childrenInPriorityOrder.map(\.key) == expected.map(\.key))
        let last5 = try! QueryParams().limitedToLast(5).filter(node)
        #expect(last5.map(\.key) == expected.suffix(5).map(\.key))
    }
}
