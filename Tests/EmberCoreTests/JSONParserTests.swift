import EmberCore
import Testing

@Suite struct JSONParserTests {
    private func parse(_ text: String) throws(DatabaseError) -> JSONValue { try JSONParser.parse(text) }

    private func failure(_ text: String) -> (message: String, line: Int, column: Int)? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            #expect(error.code == "malformed_json")
            guard let position = error.position else { return nil }
            return (error.message, position.line, position.column)
        }
    }

    @Test func integersStayExactAndOthersAreDoubles() throws {
        #expect(try parse("9223372036854775807") == .int(Int64.max))
        #expect(try parse("-9223372036854775808") == .int(Int64.min))
        #expect(try parse("9223372036854775808") == .double(9223372036854775808))
        #expect(try parse("1.5") == .double(1.5))
        #expect(try parse("1e2") == .double(100))
        #expect(try parse("-0") == .int(0))
        #expect(try parse("0.1") == .double(0.1))
    }

    @Test func stringsWithEveryEscape() throws {
        #expect(try parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{08}\u{0C}\n\r\t"))
        #expect(try parse(#""\u00e9\u65E5""#) == .string("é日"))
        #expect(try parse(#""\ud83d\ude00""#) == .string("\u{1F600}"))
        #expect(try parse("\"raw 日本 \u{1F600}\"") == .string("raw 日本 \u{1F600}"))
        // Raw characters before and after escapes, in one string.
        #expect(try parse("\"日\\n本\\u00e9x\u{1F600}\\t\"") == .string("日\n本éx\u{1F600}\t"))
        #expect(try parse(#""\"""#) == .string("\""))
        #expect(try parse(#""""#) == .string(""))
    }

    @Test func objectsKeepMemberOrder() throws {
        guard case .object(let members) = try parse(#"{"b": 1, "a": [true, null], "b": 2}"#) else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.key) == ["b", "a", "b"])
        #expect(members[1].value == .array([.bool(true), .null]))
    }

    @Test func errorsHaveLineAndColumn() {
        let cases: [(String, String, Int, Int)] = [
            ("", "unexpected end of input", 1, 1),
            ("{", "expected a member name", 1, 2),
            ("{\"a\" 1}", "expected ':'", 1, 6),
            ("{\"a\": 1,}", "expected a member name", 1, 9),
            ("[1, 2", "expected ',' or ']'", 1, 6),
            ("[1 2]", "expected ',' or ']'", 1, 4),
            ("{\n  \"a\": tru\n}", "expected a value", 2, 8),
            ("{\n  \"a\": 01\n}", "leading zero", 2, 9),
            ("\"abc", "unterminated string", 1, 1),
            ("\"a\u{01}\"", "must be escaped", 1, 3),
            ("\"\\x\"", "invalid escape \\x", 1, 2),
            ("\"\\ud83d\"", "unpaired surrogate \\uD83D", 1, 2),
            ("\"\\ude00\"", "unpaired surrogate \\uDE00", 1, 2),
            ("\"\\u12\"", "four hexadecimal digits", 1, 2),
            ("1e400", "too large", 1, 1),
            ("-", "expected a digit after '-'", 1, 2),
            ("1.", "expected a digit after the decimal point", 1, 3),
            ("nullx", "after null", 1, 5),
            ("{} {}", "after the JSON value", 1, 4),
            ("[\"日本\", x]", "unexpected 'x'", 1, 8),
            ("{'a': 1}", "expected a member name in double quotes", 1, 2),
        ]
        for (text, fragment, line, column) in cases {
            guard let (message, actualLine, actualColumn) = failure(text) else {
                Issue.record("\(text.debugDescription) parsed")
                continue
            }
            #expect(message.contains(fragment), "\(text.debugDescription): \(message)")
            #expect(actualLine == line && actualColumn == column, "\(text.debugDescription): \(message)")
            #expect(message.contains("line \(line), column \(column)"))
        }
    }

    @Test func nestingIsBounded() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(failure(deep)?.message.contains("nesting deeper than 512") == true)
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect((try? parse(fine)) != nil)
    }

    @Test func writerRoundTrips() throws {
        let text = #"{"a":[1,2.5,"x\n\u0001",true,null],"b":{"c":-9223372036854775808}}"#
        #expect(try parse(text).serialized() == text)
        // Escapes between raw characters, at the start and at the end.
        let escapes = #""\"é\"日\\x\u001f""#
        #expect(try parse(escapes).serialized() == escapes)
        #expect(try parse(text).serialized(pretty: true) == """
            {
              "a": [
                1,
                2.5,
                "x\\n\\u0001",
                true,
                null
              ],
              "b": {
                "c": -9223372036854775808
              }
            }
            """)
    }

    /// A JavaScript string may hold half a surrogate pair; read with `.replaced`, each such
    /// escape is U+FFFD and pairs and other escapes are read as ever.
    @Test func unpairedSurrogatesCanBeReplaced() throws {
        let text = #"["\ud83d\ude00", "\ud83dzz", "a\ude00", "\ud83d\u0041", "\\ud83d"]"#
        #expect(throws: DatabaseError.self) { try JSONParser.parse(text) }
        let values = try JSONParser.parse(text, unpairedSurrogates: .replaced)
        #expect(values == .array([.string("😀"), .string("\u{FFFD}zz"), .string("a\u{FFFD}"), .string("\u{FFFD}A"), .string("\\ud83d")]))
    }

    /// A member read past: `null` stands for it, whatever it holds (strings with quotes and
    /// brackets, deep nesting); the rest is read as usual; unmatched brackets are still errors.
    @Test func skippingAMember() throws {
        let deep = String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000)
        let text = #"{"t":"d","d":{"r":7,"a":"m","b":{"p":"/x","d":{"a\"}":"]{[\\","b":["#
            + deep + #"]},"h":"z"},"d":{"q":1}}}"#
        let value = try JSONParser.parse(text, skipping: ["d", "b", "d"])
        #expect(value["d"]?["b"]?["d"] == .object([("a\"}", .null), ("b", .null)]), "an object's names are kept")
        #expect(value["d"]?["b"]?["p"] == .string("/x"))
        #expect(value["d"]?["b"]?["h"] == .string("z"))
        #expect(value["d"]?["r"] == .int(7))
        // Only the member on the path is skipped: the same name elsewhere is read.
        let other = try JSONParser.parse(#"{"d":{"d":{"d":1},"b":{"x":{"d":2}}}}"#, skipping: ["d", "b", "d"])
        #expect(other["d"]?["d"]?["d"] == .int(1))
        #expect(other["d"]?["b"]?["x"]?["d"] == .int(2))
        for broken in [#"{"d":{"b":{"d":{"a":[1,2}}}"#, #"{"d":{"b":{"d":"open"#, #"{"d":{"b":{"d":[[]"#] {
            #expect(throws: DatabaseError.self, "\(broken)") { try JSONParser.parse(broken, skipping: ["d", "b", "d"]) }
        }
    }

    /// Of a skipped object, the first ``JSONParser/keptNames`` names are kept, the rest read past.
    @Test func skippingKeepsTheFirstNamesOfAnObject() throws {
        let members = (0..<100).map { #""k\#($0)":{"v":[\#($0)]}"# }.joined(separator: ",")
        let text = "{\"d\":{\"b\":{\"d\":{" + members + "}}}}"
        let value = try JSONParser.parse(text, skipping: ["d", "b", "d"])
        guard case .object(let names)? = value["d"]?["b"]?["d"] else {
            Issue.record("not an object: \(value)")
            return
        }
        let expected: [String] = (0..<JSONParser.keptNames).map { "k\($0)" }
        #expect(names.map { $0.key } == expected)
        #expect(names.allSatisfy { $0.value == .null })
        #expect(try JSONParser.parse(#"{"d":{"b":{"d":7}}}"#, skipping: ["d", "b", "d"])["d"]?["b"]?["d"] == .null)
    }
}
