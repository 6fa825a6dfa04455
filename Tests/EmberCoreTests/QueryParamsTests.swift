import EmberCore
import EmberTestSupport
import Testing

@Suite struct QueryParamsTests {
    private let scores = try! Node(jsonText: #"{"bronto": 5, "stego": 2, "tri": 9, "diplo": 5, "rex": "T", "ptero": null, "raptor": {"x": 1}, "ankylo": false}"#)

    private func keys(_ query: QueryParams, _ node: Node) -> [String] {
        query.filter(node).map(\.key.name)
    }

    @Test func keyOrderRangesAndLimits() throws {
        let node = try Node(jsonText: #"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6}"#)
        let byKey = try QueryParams().orderedBy(.key)
        #expect(keys(byKey, node) == ["a", "b", "c", "d", "e", "f"])
        #expect(keys(try byKey.startingAt(.string("b")).endingAt(.string("d")), node) == ["b", "c", "d"])
        #expect(keys(try byKey.startingAfter(.string("b")).endingBefore(.string("e")), node) == ["c", "d"])
        #expect(keys(try byKey.startingAt(.string("bb")), node) == ["c", "d", "e", "f"])
        #expect(keys(try byKey.limitedToLast(2), node) == ["e", "f"])
        #expect(keys(try byKey.limitedToFirst(2).startingAfter(.string("a")), node) == ["b", "c"])
        #expect(keys(try byKey.limitedToLast(2).endingBefore(.string("e")), node) == ["c", "d"])
        #expect(keys(try byKey.equalTo(.string("c")), node) == ["c"])
        #expect(keys(try byKey.limitedToFirst(100), node).count == 6)
    }

    @Test func valueOrderPutsTypesInOrder() throws {
        let byValue = try QueryParams().orderedBy(.value)
        // false < numbers (ties by key) < strings < objects.
        #expect(keys(byValue, scores) == ["ankylo", "stego", "bronto", "diplo", "tri", "rex", "raptor"])
        #expect(keys(try byValue.startingAt(.int(5)).endingAt(.int(9)), scores) == ["bronto", "diplo", "tri"])
        #expect(keys(try byValue.startingAt(.int(5), key: "c"), scores) == ["diplo", "tri", "rex", "raptor"])
        #expect(keys(try byValue.startingAfter(.int(5)), scores) == ["tri", "rex", "raptor"])
        #expect(keys(try byValue.endingBefore(.int(5)), scores) == ["ankylo", "stego"])
        #expect(keys(try byValue.endingBefore(.int(5), key: "diplo"), scores) == ["ankylo", "stego", "bronto"])
        #expect(keys(try byValue.limitedToLast(2), scores) == ["rex", "raptor"])
        #expect(keys(try byValue.equalTo(.int(5)), scores) == ["bronto", "diplo"])
        #expect(keys(try byValue.equalTo(.bool(false)), scores) == ["ankylo"])
    }

    @Test func childOrderTreatsMissingAsNull() throws {
        let people = try Node(jsonText: #"{"a": {"age": 30}, "b": {"age": 20}, "c": {"name": "x"}, "d": {"age": 20}, "e": 7}"#)
        let byAge = try QueryParams().orderedBy(.child("age"))
        #expect(keys(byAge, people) == ["c", "e", "b", "d", "a"])
        #expect(keys(try byAge.startingAt(.int(20)).limitedToFirst(2), people) == ["b", "d"])
        #expect(keys(try byAge.startingAt(nil).endingAt(nil), people) == ["c", "e"])
    }

    /// A limited value or child order keeps a small window while scanning instead of sorting
    /// every child: it must answer exactly what sorting all of them and slicing would.
    @Test(arguments: [1, 2, 3]) func aLimitedScanAnswersLikeSortingEverything(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var list = Node.empty
        for index in 0..<500 {
            // Few distinct scores, so that ties (broken by key) are common; some children lack one.
            let score = Int64.random(in: 0..<40, using: &random)
            let child = Bool.random(using: &random) || index % 7 == 0
                ? Node(children: [(ChildKey(unchecked: "score"), Node(.int(score)))])
                : Node(.int(score))
            list.setChild(ChildKey(unchecked: "k\(Int.random(in: 0..<100_000, using: &random))"), child)
        }
        for index in [Index.child(Path(unchecked: "score")), .value] {
            let ordered = try QueryParams().orderedBy(index)
            let everything = ordered.filter(list)
            let inRange = try ordered.startingAt(.int(10)).endingAt(.int(30))
            let middle = inRange.filter(list)
            for count in [1, 3, 10, 499, 500, 600] {
                #expect(try ordered.limitedToFirst(count).filter(list) == Array(everything.prefix(count)))
                #expect(try ordered.limitedToLast(count).filter(list) == Array(everything.suffix(count)))
                #expect(try inRange.limitedToFirst(count).filter(list) == Array(middle.prefix(count)))
                #expect(try inRange.limitedToLast(count).filter(list) == Array(middle.suffix(count)))
            }
        }
    }

    @Test func priorityOrderWithoutPrioritiesIsKeyOrder() throws {
        let node = try Node(jsonText: #"{"b":1,"a":2,"c":3}"#)
        #expect(keys(.default, node) == ["a", "b", "c"])
        #expect(keys(try QueryParams().startingAt(nil, key: "b"), node) == ["b", "c"])
        #expect(keys(try QueryParams().startingAt(.int(1)), node) == [])
        #expect(keys(try QueryParams().endingAt(.int(1)), node) == ["a", "b", "c"])
        #expect(keys(try QueryParams().limitedToLast(1), node) == ["c"])
    }

    @Test func priorityOrderUsesThePriorityIndex() throws {
        let node = try Node(jsonText: #"""
            {"a": {".value": 1, ".priority": 10}, "b": {".value": 2, ".priority": "x"},
             "c": 3, "d": {".value": 4, ".priority": 5}, "e": {".value": 5, ".priority": 5}, "f": 6}
            """#)
        #expect(keys(.default, node) == ["c", "f", "d", "e", "a", "b"])
        #expect(keys(try QueryParams().startingAt(.int(5)), node) == ["d", "e", "a", "b"])
        #expect(keys(try QueryParams().startingAt(.int(5), key: "e").limitedToFirst(2), node) == ["e", "a"])
        #expect(keys(try QueryParams().endingAt(.int(5)).limitedToLast(3), node) == ["f", "d", "e"])
        #expect(keys(try QueryParams().startingAfter(.int(5)), node) == ["a", "b"])
        #expect(keys(try QueryParams().equalTo(.string("x")), node) == ["b"])
        #expect(keys(try QueryParams().startingAt(nil).endingAt(nil), node) == ["c", "f"])
        // Removing the priorities one by one keeps the order right and finally drops the index.
        var changed = node
        for key in ["a", "b", "d", "e"] { changed.setChild(ChildKey(unchecked: key), changed.child(ChildKey(unchecked: key)).withPriority(nil)) }
        #expect(keys(.default, changed) == ["a", "b", "c", "d", "e", "f"])
    }

    @Test func orderingOnlyQueriesLoadAllData() throws {
        #expect(QueryParams.default.loadsAllData && QueryParams.default.isDefault)
        let ordered = try QueryParams().orderedBy(.child("age"))
        #expect(ordered.loadsAllData && !ordered.isDefault)
        #expect(!(try ordered.limitedToFirst(1)).loadsAllData)
    }

    private func message(_ build: () throws -> QueryParams) -> String? {
        do {
            _ = try build()
            return nil
        } catch let error as DatabaseError {
            #expect(error.code == "invalid_query")
            return error.message
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test func invalidQueriesSayWhy() throws {
        let base = QueryParams()
        #expect(message { try base.orderedBy(.key).orderedBy(.value) }?.contains("already ordered by key") == true)
        #expect(message { try base.limitedToFirst(0) }?.contains("limitToFirst takes a positive integer, not 0") == true)
        #expect(message { try base.limitedToLast(-3) }?.contains("positive integer, not -3") == true)
        #expect(message { try base.limitedToFirst(1).limitedToLast(1) }?.contains("limit is already set") == true)
        #expect(message { try base.startingAt(.int(1)).startingAfter(.int(2)) }?.contains("start is already set") == true)
        #expect(message { try base.endingAt(.int(1)).endingBefore(.int(2)) }?.contains("end is already set") == true)
        #expect(message { try base.startingAt(.int(1)).equalTo(.int(1)) }?.contains("equalTo cannot be combined") == true)
        #expect(message { try base.orderedBy(.key).startingAt(.int(1)) }?.contains("take a string key") == true)
        #expect(message { try base.startingAt(.int(1)).orderedBy(.key) }?.contains("take a string key") == true)
        #expect(message { try base.orderedBy(.key).startingAt(.string("a"), key: "b") }?.contains("take one argument") == true)
        #expect(message { try base.startingAt(.bool(true)) }?.contains("valid priority") == true)
        #expect(message { try base.orderedBy(.child(Path(unchecked: "$key"))) }?.contains("use orderByKey") == true)
        #expect(message { try base.orderedBy(.child(.root)) }?.contains("needs a child path") == true)
        #expect(message { try base.orderedBy(.value).startingAt(.bool(true)) } == nil)
    }

    @Test func description() throws {
        let query = try QueryParams().orderedBy(.child("score")).startingAt(.int(5), key: "a").limitedToLast(10)
        #expect(query.description == "orderBy child score startAt 5 a limitToLast 10")
        #expect(try QueryParams().orderedBy(.value).equalTo(.string("x")).description == "orderBy value equalTo \"x\"")
    }
}

@Suite struct QueryParamsStorageTests {
    @Test func everyKindOfQueryRoundTripsThroughItsStorageNode() throws {
        let cases: [QueryParams] = [
            QueryParams(),
            try QueryParams().orderedBy(.value).limitedToLast(4),
            try QueryParams().orderedBy(.key).startingAt(.string("b")).endingBefore(.string("m")).limitedToFirst(2),
            try QueryParams().orderedBy(.child("a/b")).startingAfter(nil, key: ChildKey(validating: "k")).endingAt(.double(2.5)),
            try QueryParams().equalTo(.string("p"), key: ChildKey(validating: "z")),
            try QueryParams().orderedBy(.priority).endingAt(.int(3)),
            try QueryParams().orderedBy(.value).equalTo(.bool(true)),
        ]
        for params in cases {
            let text = params.storageNode.jsonString(.export)
            #expect(try QueryParams(storageNode: try Node(jsonText: text)) == params, "\(text)")
        }
    }

    @Test func aStoredQueryThatIsNotOneIsRefused() throws {
        #expect(throws: DatabaseError.self) { try QueryParams(storageNode: try Node(jsonText: #"{"i":".key","sin":true,"sp":3,"sn":"[MIN_NAME]"}"#)) }
        #expect(throws: DatabaseError.self) { try QueryParams(storageNode: try Node(jsonText: #"{"i":5}"#)) }
        #expect(throws: DatabaseError.self) { try QueryParams(storageNode: try Node(jsonText: #"{"l":0,"vf":"l"}"#)) }
    }
}
