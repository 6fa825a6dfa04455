import EmberCore
import Testing

@Suite struct NodeJSONTests {
    private func node(_ text: String) throws -> Node { try Node(jsonText: text) }

    /// Before, each run of plain characters was appended through `output.unicodeScalars`,
    /// which copied all the text written so far: a 10 MB import did not serialize in 10 minutes.
    @Test(.timeLimit(.minutes(5)))
    func twoHundredThousandStringsSerializeAndReadBack() throws {
        let count = 200_000
        let big = Node(children: (0..<count).map { index in
            (ChildKey(unchecked: "c\(index)"), Node(.string("child \(index) \"quoted\"\tand plain")))
        })
        let text = big.jsonString(.export)
        #expect(text.utf8.count > 7_000_000)
        #expect(try node(text) == big)
    }

    @Test func emptyValuesAreNoData() throws {
        for text in ["null", "{}", "[]", "{\"a\": {}}", "{\"a\": [null, {}]}", "{\".priority\": 5}"] {
            #expect(try node(text).isEmpty, "\(text)")
        }
        #expect(try node("\"\"").leafValue == .string(""))
        #expect(try node("0").leafValue == .int(0))
        #expect(try node("false").leafValue == .bool(false))
    }

    @Test func arrayRendering() throws {
        // The "more than half" rule as every SDK implements it.
        #expect(try node(#"{"0":"a","1":"b","2":"c"}"#).jsonString() == #"["a","b","c"]"#)
        #expect(try node(#"{"0":"a","2":"b"}"#).jsonString() == #"["a",null,"b"]"#)
        #expect(try node(#"{"0":"a","3":"b"}"#).jsonString() == #"["a",null,null,"b"]"#)
        #expect(try node(#"{"0":"a","4":"b"}"#).jsonString() == #"{"0":"a","4":"b"}"#)
        #expect(try node(#"{"3":"x","03":"y"}"#).jsonString() == #"{"3":"x","03":"y"}"#)
        #expect(try node(#"{"1":"x"}"#).jsonString() == #"[null,"x"]"#)
        #expect(try node(#"{"2":"x"}"#).jsonString() == #"{"2":"x"}"#)
        #expect(try node(#"{"-1":"x","0":"y"}"#).jsonString() == #"{"-1":"x","0":"y"}"#)
        #expect(try node(#"{"0":"x","a":"y"}"#).jsonString() == #"{"0":"x","a":"y"}"#)
        #expect(try node(#"[1,[2,{"0":3}]]"#).jsonString() == #"[1,[2,[3]]]"#)
        // Arrays with null elements keep their indexes.
        #expect(try node(#"[null, "a", null, "b"]"#).jsonString() == #"[null,"a",null,"b"]"#)
        // Export form never renders arrays.
        #expect(try node(#"["a","b"]"#).jsonString(.export) == #"{"0":"a","1":"b"}"#)
    }

    @Test func exportFormShowsPriorities() throws {
        let value = try node(#"{"a": {".value": 1, ".priority": "p"}, "b": {"c": true, ".priority": 2}, ".priority": 1.5}"#)
        #expect(value.priority == .number(1.5))
        #expect(value.child("a").priority == .string("p"))
        #expect(value.jsonString(.export) == #"{"a":{".value":1,".priority":"p"},"b":{"c":true,".priority":2},".priority":1.5}"#)
        #expect(value.jsonString() == #"{"a":1,"b":{"c":true}}"#)
        #expect(try Node(jsonText: value.jsonString(.export)) == value)
    }

    @Test func childrenComeInKeyOrder() throws {
        #expect(try node(#"{"b":1,"10":2,"a":3,"9":4}"#).jsonString() == #"{"9":4,"10":2,"a":3,"b":1}"#)
    }

    @Test func numbersAreNormalised() throws {
        #expect(try node("1.0").leafValue == .int(1))
        #expect(try node("-0.0").leafValue == .int(0))
        #expect(try node("1e3").leafValue == .int(1000))
        #expect(try node("0.5").leafValue == .double(0.5))
        #expect(try node("1e300").leafValue == .double(1e300))
        #expect(try node("9223372036854775807").jsonString() == "9223372036854775807")
    }

    @Test func serverValues() throws {
        #expect(try node(#"{".sv": "timestamp"}"#).leafValue == .deferred(.timestamp))
        #expect(try node(#"{".sv": {"increment": 2}}"#).leafValue == .deferred(.increment(by: 2)))
        #expect(try node(#"{"t": {".sv": "timestamp"}}"#).jsonString() == #"{"t":{".sv":"timestamp"}}"#)
        for bad in [#"{".sv": "later"}"#, #"{".sv": {"increment": "x"}}"#, #"{".sv": "timestamp", "a": 1}"#] {
            #expect(throws: DatabaseError.self, "\(bad)") { try node(bad) }
        }
    }

    private func error(_ text: String, at path: Path = .root) -> DatabaseError? {
        do {
            _ = try Node(jsonText: text, at: path)
            return nil
        } catch {
            return error
        }
    }

    @Test func invalidValuesNameThePath() {
        let badKey = error(#"{"users": {"al.ice": 1}}"#, at: "/root")
        #expect(badKey?.code == "invalid_key")
        #expect(badKey?.message == "invalid key \"al.ice\" at /root/users: a key must not contain \".\"")
        #expect(error(#"{".value": {"a": 1}}"#)?.code == "invalid_value")
        #expect(error(#"{".value": 1, "a": 2}"#)?.message.contains("no other children") == true)
        #expect(error(#"{"a": {".priority": true, "b": 1}}"#)?.message == "invalid priority at /a: a priority must be a number, a string, a server value or null, not true")
        #expect(error(#"{".foo": 1}"#)?.code == "invalid_key")
        #expect(error(#"{"a": "#)?.code == "malformed_json")
    }

    @Test func depthLimitCountsTheWritePath() throws {
        let base = Path(keys: (1...30).map { ChildKey(unchecked: "k\($0)") })
        #expect(try Node(jsonText: #"{"a": 1}"#, at: base).childCount == 1)
        let tooDeep = error(#"{"a": {"b": 1}}"#, at: base)
        #expect(tooDeep?.code == "path_too_deep")
        #expect(tooDeep?.message.contains("/k30/a/b\" is 32 levels deep") == true)
        // Empty objects below the limit create no data, so they are no error.
        #expect(try Node(jsonText: #"{"a": {"b": {}}}"#, at: base).isEmpty)
    }

    @Test func stringSizeLimit() throws {
        let largest = String(repeating: "x", count: Limits.maxStringBytes)
        #expect(try Node(json: .string(largest)).leafValue == .string(largest))
        let tooLarge = error("\"" + largest + "é\"")
        #expect(tooLarge?.code == "invalid_value")
        #expect(tooLarge?.message.contains("this one has 10485762") == true)
    }

    /// Issue 18, item 9: `-2^63-1` was stored as the exact integer `-2^63`, while `2^63` stays a
    /// double: both are beyond 64 bits and are stored as the double they round to.
    @Test func integersBeyondSixtyFourBitsAreStoredAsDoublesOnBothSides() throws {
        let node = try Node(jsonText: #"{"low": -9223372036854775809, "high": 9223372036854775808, "min": -9223372036854775808}"#)
        #expect(node.child("low").leafValue.map { "\($0)" } == "\(LeafValue.double(-0x1p63))")
        #expect(node.child("high").leafValue.map { "\($0)" } == "\(LeafValue.double(0x1p63))")
        #expect(node.child("min").leafValue.map { "\($0)" } == "\(LeafValue.int(Int64.min))")
        #expect(node.jsonString() == #"{"high":9.223372036854776e+18,"low":-9.223372036854776e+18,"min":-9223372036854775808}"#)
        #expect(LeafValue(normalizing: -0x1p63).map { "\($0)" } == "\(LeafValue.double(-0x1p63))")
        #expect(LeafValue(normalizing: -0x1p62).map { "\($0)" } == "\(LeafValue.int(-1 << 62))")
    }

    @Test func nonFiniteNumbersAreRejected() {
        for number in [Double.nan, .infinity, -.infinity] {
            #expect(throws: DatabaseError.self) { try Node(json: .object([("a", .double(number))])) }
            #expect(LeafValue(normalizing: number) == nil)
        }
    }
}
