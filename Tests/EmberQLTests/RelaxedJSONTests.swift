import EmberCore
import Testing

@testable import EmberQL

@Suite struct RelaxedJSONTests {
    private func value(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        try RelaxedJSON.parse(text)
    }

    @Test func objectsWithUnquotedKeysKeepTheirOrder() throws {
        let parsed = try value("{name: 'Al', age: 3, \"last name\": \"B\"}")
        #expect(parsed == ["name": "Al", "age": 3, "last name": "B"])
        guard case .object(let members) = parsed else { throw Failure() }
        #expect(members.map(\.key) == ["name", "age", "last name"])
        let reordered = try value("{b: 1, a: 2}")
        #expect(reordered != ["a": 2, "b": 1])
    }

    @Test func keysMayBeDeepPathsNumbersAndKeywords() throws {
        #expect(try value("{a/b: 1, 0: 'x', -x: 2, .priority: 3, true: 4, now: 5}") == [
            "a/b": 1, "0": "x", "-x": 2, ".priority": 3, "true": 4, "now": 5,
        ])
        #expect(try value("{a: 1, a: 2}") == .object([(key: "a", value: 1), (key: "a", value: 2)]))
    }

    @Test func literalsInAnyCase() throws {
        #expect(try value("true") == true)
        #expect(try value("FALSE") == false)
        #expect(try value("Null") == .null)
        #expect(try value("'single'") == "single")
        #expect(try value("\"double\"") == "double")
    }

    @Test func numbers() throws {
        #expect(try value("0") == .int(0))
        #expect(try value("-42") == .int(-42))
        #expect(try value("9223372036854775807") == .int(Int64.max))
        #expect(try value("-9223372036854775808") == .int(Int64.min))
        #expect(try value("9223372036854775808") == .double(9223372036854775808))
        #expect(try value("1.5") == .double(1.5))
        #expect(try value("1.0") == .double(1))
        #expect(try value("1e3") == .double(1000))
        #expect(try value("2.5E-1") == .double(0.25))
        guard case .double(let zero) = try value("-0") else { throw Failure() }
        #expect(zero == 0 && zero.sign == .minus)
    }

    @Test func serverValues() throws {
        #expect(try value("now") == .serverTimestamp)
        #expect(try value("NOW") == .serverTimestamp)
        #expect(try value("increment(5)") == .increment(5))
        #expect(try value("increment ( -2 )") == .increment(-2))
        #expect(try value("increment(1.5)") == [".sv": ["increment": 1.5]])
        #expect(try value("{a: [1, {b: now}], c: increment(1)}") == [
            "a": [1, ["b": .serverTimestamp]], "c": .increment(1),
        ])
    }

    @Test func trailingCommasAndEmptyContainers() throws {
        #expect(try value("[1, 2,]") == [1, 2])
        #expect(try value("{a: 1,}") == ["a": 1])
        #expect(try value("[]") == [])
        #expect(try value("{}") == .object([]))
        #expect(try value("[[], {}, [[]]]") == [[], .object([]), [[]]])
    }

    @Test func spansLinesWithComments() throws {
        let text = """
            {
              name: 'Al',   # the name
              tags: [
                'a',        # first
                'b#c',
              ],
            }
            """
        #expect(try value(text) == ["name": "Al", "tags": ["a", "b#c"]])
    }

    @Test func nestingIsLimited() throws {
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try value(deepest) }
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(throws: EmberQLError("values nest deeper than 512 levels", at: at(513))) { try value(tooDeep) }
        let objects = String(repeating: "{a:", count: 100_000)
        #expect(throws: EmberQLError("values nest deeper than 512 levels", at: at(512 * 3 + 1))) { try value(objects) }
    }

    static let errors: [ErrorCase] = [
        ErrorCase("alice", "expected a value, found 'alice' (quote text: 'alice')", 1, 1, length: 5),
        ErrorCase("o'brien", "expected a value, found 'o' (quote text: 'o')", 1, 1),
        ErrorCase("{a: it's}", "expected a value, found 'it' (quote text: 'it')", 1, 5, length: 2),
        ErrorCase("NaN", "expected a value, found 'NaN' (numbers must be finite)", 1, 1, length: 3),
        ErrorCase("[-Infinity]", "expected a value, found '-Infinity' (numbers must be finite)", 1, 2, length: 9),
        ErrorCase("1e999", "number '1e999' is out of range (a double holds about ±1.8e308)", 1, 1, length: 5),
        ErrorCase("'abc", "unterminated string", 1, 1),
        ErrorCase("{a: 1", "unterminated object", 1, 1),
        ErrorCase("{a:", "unterminated object", 1, 1),
        ErrorCase("{a", "unterminated object", 1, 1),
        ErrorCase("[1, [2, 3]", "unterminated array", 1, 1),
        ErrorCase("[1, [2,", "unterminated array", 1, 5),
        ErrorCase("{a 1}", "expected ':' after key 'a', found '1'", 1, 4),
        ErrorCase("{'k' 1}", "expected ':' after key 'k', found '1'", 1, 6),
        ErrorCase("{a: 1,, b: 2}", "expected a key or '}', found ','", 1, 7),
        ErrorCase("{,}", "expected a key or '}', found ','", 1, 2),
        ErrorCase("{[1]: 2}", "expected a key or '}', found '['", 1, 2),
        ErrorCase("[1,,2]", "expected a value, found ','", 1, 4),
        ErrorCase("[,]", "expected a value, found ','", 1, 2),
        ErrorCase("{a: 1 b: 2}", "expected ',' or '}' after the value of 'a', found 'b'", 1, 7),
        ErrorCase("[1 2]", "expected ',' or ']' after an element, found '2'", 1, 4),
        ErrorCase("[1}", "expected ',' or ']' after an element, found '}'", 1, 3),
        ErrorCase("}", "expected a value, found '}'", 1, 1),
        ErrorCase("", "expected a value, found the end of the line", 1, 1),
        ErrorCase("1 2", "unexpected '2' after the value", 1, 3),
        ErrorCase("increment 5", "expected '(' after 'increment', found '5'", 1, 11),
        ErrorCase("increment(x)", "increment needs a number, found 'x'", 1, 11),
        ErrorCase("increment(", "expected a number after 'increment(', found the end of the line", 1, 11),
        ErrorCase("increment(1]", "expected ')' after the increment, found ']'", 1, 12),
        ErrorCase("increment(1", "expected ')' after the increment, found the end of the line", 1, 12),
        ErrorCase("{\n  a: 1\n  b: 2\n}", "expected ',' or '}' after the value of 'a', found 'b'", 3, 3),
    ]

    @Test(arguments: errors) func errorsSayWhatAndWhere(_ error: ErrorCase) {
        do {
            let parsed = try RelaxedJSON.parse(error.source)
            Issue.record("parsed as \(parsed)")
        } catch let thrown {
            #expect(thrown.message == error.message)
            #expect(thrown.position.line == error.line)
            #expect(thrown.position.column == error.column)
            #expect(thrown.length == error.length)
        }
    }
}

/// A test that cannot go on.
struct Failure: Error {}
