import EmberCore
@testable import EmberRules
import Testing

/// The expression language beyond the targaryen fixtures: snapshots over data, `now`,
/// `newData`, string methods, and the trace `explain` prints.
@Suite("Rule")
struct RuleTests {
    private func evaluate(_ source: String, kind: RuleKind = .read, data: String = "null", newData: String? = nil, path: Path = .root) throws -> RuleOutcome {
        let rule = try Rule(source, kind: kind)
        let context = RuleContext(
            auth: .object([("uid", .string("alice"))]), now: 1_000, root: try Node(jsonText: data, at: .root),
            newRoot: try newData.map { try Node(jsonText: $0, at: .root) }, path: path)
        return rule.evaluate(context)
    }

    @Test("snapshot methods over data")
    func snapshots() throws {
        let data = #"{"a": {"b": 1, "s": "text", "t": true, ".priority": 5}}"#
        #expect(try evaluate("data.child('a/b').val() === 1", data: data).allowed)
        #expect(try evaluate("data.child('a').child('s').isString() && data.child('a/t').isBoolean() && data.child('a/b').isNumber()", data: data).allowed)
        #expect(try evaluate("data.child('a').getPriority() === 5", data: data).allowed)
        #expect(try evaluate("data.child('a/b').parent().hasChildren(['b', 's'])", data: data).allowed)
        #expect(try !evaluate("data.child('a').hasChildren(['b', 'missing'])", data: data).allowed)
        #expect(try evaluate("data.hasChild('a/s') && !data.hasChild('a/x')", data: data).allowed)
        #expect(try evaluate("root.child('a').exists() && !root.child('z').exists()", data: data).allowed)
        #expect(try evaluate("data.child('a').val() != null", data: data).allowed)
    }

    @Test("newData is the data after the write; now is the server's time")
    func writeVariables() throws {
        #expect(try evaluate("newData.val() > data.val() && now === 1000", kind: .write, data: #"{"n": 1}"#, newData: #"{"n": 2}"#, path: "n").allowed)
        #expect(try !evaluate("newData.exists()", kind: .write, data: #"{"n": 1}"#, newData: "null", path: "n").allowed)
    }

    @Test("string methods and operators")
    func strings() throws {
        #expect(try evaluate("'Hello'.toLowerCase() === 'hello' && 'a-b-c'.replace('-', '+') === 'a+b+c'").allowed)
        #expect(try evaluate("'abc'.beginsWith('ab') && 'abc'.endsWith('bc') && 'abc'.length === 3").allowed)
        #expect(try evaluate("'x' + 1 + 2 === 'x12' && 1 + 2 + 'x' === '3x' && 0.5 + '' === '0.5'").allowed)
        #expect(try evaluate("'user@example.com'.matches(/^[a-z]+@[a-z]+\\.com$/)").allowed)
        #expect(try evaluate("7 % 4 === 3 && -(2) < 0 && (true ? 1 : 2) === 1").allowed)
    }

    @Test("strings compare by UTF-16 code units, never by canonical equivalence (KELVIN SIGN is not K, e + U+0301 is not é, U+037E is not ;)")
    func codeUnitStrings() throws {
        // Firebase compares strings as JavaScript and Java do, by code units; Swift's `==`, `<`,
        // `contains`, `hasPrefix`, `hasSuffix` and `replacing` treat canonically equivalent
        // strings as equal.
        for source in [
            #"'\u212Aate' !== 'Kate' && !('\u212Aate' == 'Kate')"#,
            #"'e\u0301mile' !== '\u00e9mile' && 'a\u037Eb' !== 'a;b'"#,
            #"'\u212A' > 'L' && 'L' < '\u212A' && 'e\u0301' < '\u00e9'"#,
            #"!'\u212Aate'.contains('K') && !'Kate'.contains('\u212A') && 'e\u0301mile'.contains('e') && !'\u00e9'.contains('e')"#,
            #"!'\u212Aate'.beginsWith('K') && 'e\u0301mile'.beginsWith('e') && !'\u00e9mile'.beginsWith('e\u0301')"#,
            #"!'a\u037E'.endsWith(';') && 'e\u0301'.endsWith('\u0301') && !'\u00e9'.endsWith('e\u0301')"#,
            #"'a\u037Eb'.replace(';', '-') === 'a\u037Eb' && 'e\u0301'.replace('e', 'a') === 'a\u0301' && 'K\u212A'.replace('K', 'k') === 'k\u212A'"#,
            "!'\u{212A}ate'.matches(/^Kate$/) && !'e\u{301}mile'.matches(/^\u{E9}mile$/) && 'e\u{301}'.matches(/^e.$/) && !'a\u{37E}b'.matches(/;/)",
        ] {
            #expect(try evaluate(source).allowed, "\(source)")
        }
    }

    @Test("string escapes: one-letter ones, \\u, a surrogate pair for a character beyond U+FFFF; a lone half is an error")
    func stringEscapes() throws {
        #expect(try evaluate(#"'a\tb'.length === 3 && '\u00e9' === 'é' && '\ud83d\ude00' === '😀' && '\ud83d\ude00'.length === 2"#).allowed)
        #expect(try evaluate(#"'it\'s' === "it's""#).allowed)
        for (source, offset) in [(#"'\ud83d' === ''"#, 1), (#"'\ude00' === ''"#, 1), (#"'x\u12g4' === ''"#, 2)] {
            #expect(throws: RuleSyntaxError.self, "\(source)") { try Rule(source, kind: .read) }
            do {
                _ = try Rule(source, kind: .read)
            } catch {
                #expect(error.offset == offset, "\(source): \(error)")
            }
        }
    }

    @Test("the trace lists each sub-expression with its value, in order")
    func trace() throws {
        let rule = try Rule("auth.uid === 'bob' || data.exists()", kind: .read)
        let outcome = rule.evaluate(RuleContext(auth: .object([("uid", .string("alice"))]), now: 0, root: .empty), tracing: true)
        #expect(!outcome.allowed)
        #expect(outcome.explanation == [
            "auth.uid → \"alice\"", "auth.uid === 'bob' → false", "data.exists() → false", "auth.uid === 'bob' || data.exists() → false",
        ])
    }

    @Test("an expression nesting too deep is refused with an error, not a crash; at the limits it works")
    func depthLimit() throws {
        func refusal(_ source: String) -> RuleSyntaxError? {
            do {
                _ = try Rule(source, kind: .read)
                return nil
            } catch {
                return error
            }
        }
        let limit = RuleParser.maxDepth
        // Too deep, each way an expression nests: parentheses, !, a long chain, ? :, arguments.
        for source in [
            String(repeating: "(", count: 100_000) + "true" + String(repeating: ")", count: 100_000),
            String(repeating: "!", count: 100_000) + "true",
            Array(repeating: "false", count: 200_000).joined(separator: " || ") + " || true",
            String(repeating: "true ? ", count: 5_000) + "true" + String(repeating: " : false", count: 5_000),
            String(repeating: "root.child(", count: 5_000) + "'a'" + String(repeating: ")", count: 5_000) + ".exists()",
        ] {
            let error = try #require(refusal(source), "\(source.prefix(20))… is refused")
            #expect(error.reason.contains("nests deeper than"), "\(error.reason)")
        }
        // At the limits: 127 operators in a chain make a tree 128 deep; 48 nested parentheses;
        // both check, compile and evaluate.
        let chain = Array(repeating: "false", count: limit - 1).joined(separator: " || ") + " || true"
        #expect(try evaluate(chain).allowed)
        #expect(refusal(chain + " || true") != nil, "one level more is refused")
        let nesting = RuleParser.maxNesting
        let parenthesized = String(repeating: "(", count: nesting - 1) + "true" + String(repeating: ")", count: nesting - 1)
        #expect(try evaluate(parenthesized).allowed)
        #expect(refusal("(" + parenthesized + ")") != nil, "one level more is refused")
    }
}
