import EmberCore
@testable import EmberRules
import EmberTestSupport
import Foundation
import Testing

/// The 186 cases of `../shared/conformance/rules/targaryen-fixtures.json` (recorded by
/// targaryen's `bin/targaryen-specs` against a live Firebase database: whether each rule is
/// accepted, fails at run time, or evaluates to true or false, for a given user, data, wildcard
/// keys and query), run in full from there.
@Suite("Rules: targaryen fixtures")
struct RuleTargaryenFixtureTests {
    struct Case: CustomStringConvertible {
        let rule: String
        let user: String
        let isValid: Bool
        let failAtRuntime: Bool
        let evaluateTo: Bool?
        let data: JSONValue?
        let wildchildren: [String: String]
        let query: [(key: String, value: JSONValue)]

        var description: String { "\(rule) as \(user)" }
    }

    static func fixture() throws -> (users: [String: JSONValue], cases: [Case]) {
        let spec = try SyncPointSpec.fixturePath()
        let path = (spec as NSString).deletingLastPathComponent + "/rules/targaryen-fixtures.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard case .object(let document) = try JSONValue(parsing: text),
            case .object(let users)? = document.first(where: { $0.key == "users" })?.value,
            case .array(let tests)? = document.first(where: { $0.key == "tests" })?.value
        else { throw RuleRuntimeError("\(path) is not {users, tests}") }
        var cases: [Case] = []
        for test in tests {
            guard case .object(let fields) = test else { continue }
            func field(_ name: String) -> JSONValue? { fields.first { $0.key == name }?.value }
            guard case .string(let rule)? = field("rule"), case .string(let user)? = field("user"),
                case .bool(let isValid)? = field("isValid")
            else { continue }
            var wildchildren: [String: String] = [:]
            if case .object(let members)? = field("wildchildren") {
                for (key, value) in members { if case .string(let text) = value { wildchildren[key] = text } }
            }
            var query: [(key: String, value: JSONValue)] = []
            if case .object(let members)? = field("query") { query = members }
            let failAtRuntime: Bool
            if case .bool(let fails)? = field("failAtRuntime") { failAtRuntime = fails } else { failAtRuntime = false }
            let evaluateTo: Bool?
            if case .bool(let value)? = field("evaluateTo") { evaluateTo = value } else { evaluateTo = nil }
            cases.append(Case(
                rule: rule, user: user, isValid: isValid, failAtRuntime: failAtRuntime, evaluateTo: evaluateTo, data: field("data"),
                wildchildren: wildchildren, query: query))
        }
        return (Dictionary(uniqueKeysWithValues: users.map { ($0.key, $0.value) }), cases)
    }

    static func query(_ members: [(key: String, value: JSONValue)]) -> RuleQuery {
        var query = RuleQuery()
        if members.contains(where: { $0.key.hasPrefix("orderBy") }) { query.orderByKey = false }
        for (key, value) in members {
            switch key {
            case "orderByKey": query.orderByKey = value == .bool(true)
            case "orderByValue": query.orderByValue = value == .bool(true)
            case "orderByPriority": query.orderByPriority = value == .bool(true)
            case "orderByChild": query.orderByChild = RuleValue(value)
            case "startAt": query.startAt = RuleValue(value)
            case "endAt": query.endAt = RuleValue(value)
            case "equalTo": query.equalTo = RuleValue(value)
            case "limitToFirst": query.limitToFirst = RuleValue(value)
            case "limitToLast": query.limitToLast = RuleValue(value)
            default: break
            }
        }
        return query
    }

    @Test("every case: accepted or refused as Firebase did, failing at run time or true or false as it did")
    func allCases() throws {
        let (users, cases) = try Self.fixture()
        #expect(cases.count == 186, "the fixture has 186 cases")
        var passed = 0
        for test in cases {
            let compiled: Rule
            do {
                compiled = try Rule(test.rule, kind: .read, captures: Set(test.wildchildren.keys))
            } catch {
                #expect(!test.isValid, "\(test): refused, but Firebase accepts it: \(error)")
                if !test.isValid { passed += 1 }
                continue
            }
            guard test.isValid else {
                Issue.record("\(test): accepted, but Firebase refuses it")
                continue
            }
            let auth = users[test.user].flatMap { $0 == .null ? nil : $0 }
            let root = try test.data.map { try Node(json: $0) } ?? .empty
            let context = RuleContext(
                auth: auth, now: 1_500_000_000_000, root: root, captures: RuleCaptures(test.wildchildren), query: Self.query(test.query))
            let outcome = compiled.evaluate(context)
            switch outcome.result {
            case .failure(let error):
                #expect(test.failAtRuntime, "\(test): failed at run time (\(error)), Firebase gives \(String(describing: test.evaluateTo))")
                if test.failAtRuntime { passed += 1 }
            case .success(let value):
                #expect(!test.failAtRuntime, "\(test): gave \(value), Firebase fails at run time")
                #expect(value == test.evaluateTo, "\(test): gave \(value), Firebase gives \(String(describing: test.evaluateTo))")
                if !test.failAtRuntime && value == test.evaluateTo { passed += 1 }
            }
        }
        #expect(passed == cases.count, "\(passed) of \(cases.count) cases as Firebase")
    }
}
