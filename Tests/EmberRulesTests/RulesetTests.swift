import EmberCore
@testable import EmberRules
import EmberTestSupport
import Testing

/// Firebase's rules semantics, from its documentation ("Understand Firebase Realtime Database
/// Rules", "Rules cascade", "Rules are not filters", "Validating data") and targaryen's
/// `ruleset.js`.
@Suite("Ruleset")
struct RulesetTests {
    private let alice: JSONValue = .object([("uid", .string("alice")), ("provider", .string("password"))])

    private func rules(_ text: String) throws -> Ruleset { try Ruleset(text: text) }

    @Test("no rules: everything may be read and written")
    func openRules() {
        #expect(Ruleset.open.isOpen)
        #expect(Ruleset.open.read("a/b", auth: nil, now: 0, root: .empty).allowed)
        #expect(Ruleset.open.write("a/b", auth: nil, now: 0, root: .empty, newRoot: json(#"{"a":{"b":1}}"#)).allowed)
    }

    @Test("a read granted above cannot be taken back below; rules below are not filters")
    func readCascade() throws {
        let ruleset = try rules(#"{"rules": {"foo": {".read": true, "bar": {".read": false}}, "baz": {"qux": {".read": true}}}}"#)
        #expect(ruleset.read("foo/bar", auth: nil, now: 0, root: .empty).allowed, "granted at /foo")
        #expect(ruleset.read("foo/bar/deeper", auth: nil, now: 0, root: .empty).allowed)
        #expect(!ruleset.read("baz", auth: nil, now: 0, root: .empty).allowed, "a readable child does not make its parent readable")
        #expect(ruleset.read("baz/qux", auth: nil, now: 0, root: .empty).allowed)
        #expect(!ruleset.read(.root, auth: nil, now: 0, root: .empty).allowed)
    }

    @Test("a wildcard binds the key: users write only their own location, and the denial says which rule")
    func wildcardCapture() throws {
        let ruleset = try rules(#"""
            {
              // each user owns /users/<uid>
              "rules": {
                "users": {
                  "$uid": { ".write": "auth != null && auth.uid === $uid" }
                }
              }
            }
            """#)
        let newRoot = json(#"{"users":{"alice":{"name":"A"},"bob":{"name":"B"}}}"#)
        #expect(ruleset.write("users/alice/name", auth: alice, now: 0, root: .empty, newRoot: newRoot).allowed)
        let denied = ruleset.write("users/bob/name", auth: alice, now: 0, root: .empty, newRoot: newRoot, tracing: true)
        #expect(!denied.allowed)
        #expect(denied.summary.contains(#"/users/$uid .write "auth != null && auth.uid === $uid" is false"#), "\(denied.summary)")
        #expect(!ruleset.write("users/alice", auth: nil, now: 0, root: .empty, newRoot: newRoot).allowed, "signed out")
        let steps = denied.steps.flatMap { $0.outcome.explanation }
        #expect(steps.contains("auth.uid → \"alice\""), "\(steps)")
        #expect(steps.contains("auth.uid === $uid → false"), "\(steps)")
    }

    @Test("a wildcard's key and auth.uid compare by code units: \\u212Aate is not Kate, e\\u0301mile is not \\u00e9mile, a\\u037Eb is not a;b; such keys are two rules' places")
    func canonicallyEquivalentKeys() throws {
        let ruleset = try rules(#"{"rules": {"users": {"$uid": {".read": "$uid === auth.uid", ".write": "$uid === auth.uid"}}}}"#)
        for (owner, impostor) in [("Kate", "\u{212A}ate"), ("\u{E9}mile", "e\u{301}mile"), ("a;b", "a\u{37E}b")] {
            let newRoot = Node.empty.updating(at: Path(keys: ["users", ChildKey(unchecked: owner)]), Node(.string("x")))
            for (uid, allowed) in [(owner, true), (impostor, false)] {
                let auth: JSONValue = .object([("uid", .string(uid))])
                let path = Path(keys: ["users", ChildKey(unchecked: owner)])
                #expect(ruleset.read(path, auth: auth, now: 0, root: .empty).allowed == allowed, "\(uid) reads /users/\(owner)")
                #expect(ruleset.write(path, auth: auth, now: 0, root: .empty, newRoot: newRoot).allowed == allowed, "\(uid) writes /users/\(owner)")
            }
        }
        // Two keys a rules document holds apart, each with its own rule.
        let named = try rules(#"{"rules": {"Kate": {".read": true}, "\u212Aate": {".read": false}}}"#)
        #expect(named.read("Kate", auth: nil, now: 0, root: .empty).allowed)
        #expect(!named.read(Path(keys: [ChildKey(unchecked: "\u{212A}ate")]), auth: nil, now: 0, root: .empty).allowed)
    }

    @Test(".validate: every rule on the path and below where the new data exists; not for deletes; no cascade")
    func validation() throws {
        let ruleset = try rules(#"""
            {"rules": {
              ".write": true,
              "users": {
                "$uid": {
                  ".validate": "newData.hasChildren(['name'])",
                  "name": {".validate": "newData.isString() && newData.val().length < 10"},
                  "age": {".validate": "newData.isNumber()"}
                }
              }
            }}
            """#)
        func write(_ path: Path, _ root: String) -> AccessDecision {
            ruleset.write(path, auth: nil, now: 0, root: .empty, newRoot: json(root))
        }
        #expect(write("users/u1", #"{"users":{"u1":{"name":"Ann"}}}"#).allowed)
        #expect(!write("users/u1", #"{"users":{"u1":{"name":5}}}"#).allowed, "the child's .validate")
        #expect(!write("users/u1", #"{"users":{"u1":{"age":5}}}"#).allowed, "the location's .validate: no name")
        #expect(!write("users/u1/age", #"{"users":{"u1":{"name":"Ann","age":"old"}}}"#).allowed)
        #expect(write("users/u1/age", #"{"users":{"u1":{"name":"Ann","age":30}}}"#).allowed, "the ancestor's .validate holds in the new data")
        #expect(write("users/u1", #"{"users":{}}"#).allowed, "a delete is not validated")
        #expect(write("users/u1/age", #"{"users":{"u1":{"name":"Ann"}}}"#).allowed, "deleting age: the ancestor still validates")
    }

    @Test("a write is granted from the root down to its location only, never by a rule below it")
    func writeNotGrantedBelow() throws {
        let ruleset = try rules(#"{"rules": {"a": {"b": {".write": true}}}}"#)
        #expect(!ruleset.write("a", auth: nil, now: 0, root: .empty, newRoot: json(#"{"a":{"b":1}}"#)).allowed)
        #expect(ruleset.write("a/b", auth: nil, now: 0, root: .empty, newRoot: json(#"{"a":{"b":1}}"#)).allowed)
    }

    @Test("an error in a rule counts as false, even where || would make it true")
    func errorsDeny() throws {
        let ruleset = try rules(#"{"rules": {".read": "auth.uid.length > 0 || true"}}"#)
        let decision = ruleset.read(.root, auth: nil, now: 0, root: .empty)
        #expect(!decision.allowed)
        #expect(decision.reason.contains("error: null has no length (counts as false)"), "\(decision.reason)")
    }

    @Test("query rules see the query: only a read of one's own items passes")
    func queryRules() throws {
        let ruleset = try rules(#"{"rules": {"items": {".read": "query.orderByChild == 'owner' && query.equalTo == auth.uid"}}}"#)
        var params = QueryParams.default
        params = try params.orderedBy(.child("owner")).equalTo(.string("alice"))
        #expect(ruleset.read("items", auth: alice, now: 0, root: .empty, query: RuleQuery(params)).allowed)
        #expect(!ruleset.read("items", auth: alice, now: 0, root: .empty).allowed)
        let others = try QueryParams.default.orderedBy(.child("owner")).equalTo(.string("bob"))
        #expect(!ruleset.read("items", auth: alice, now: 0, root: .empty, query: RuleQuery(others)).allowed)
    }

    @Test("document errors name line:column and the rule's place")
    func documentErrors() throws {
        func failure(_ text: String) -> RulesError? {
            do {
                _ = try Ruleset(text: text)
                return nil
            } catch {
                return error
            }
        }
        #expect(failure(#"{"rules": {"a": {".raed": true}}}"#)?.message == "1:27: unknown rule .raed (a location has .read, .write, .validate and .indexOn) (at rules/a/.raed)")
        #expect(failure("{\"rules\": {\n  \"a\": {\".read\": \"auth.uid === = 1\"}\n}}")?.message.hasPrefix("2:32: rules cannot assign") == true)
        #expect(failure(#"{"rules": {"$a": {}, "$b": {}}}"#)?.reason.contains("two wildcards") == true)
        #expect(failure(#"{"rules": {"$a": {"$a": {}}}}"#)?.reason.contains("already used above") == true)
        #expect(failure(#"{"rules": {"a": {".write": "$b === 'x'"}}}"#)?.reason.contains("unknown wildcard $b") == true)
        #expect(failure(#"{"rules": {".read": "newData.exists()"}}"#)?.reason.contains("newData is not available") == true)
        #expect(failure(#"{"rules": {".read": 7}}"#)?.place == "rules/.read")
        #expect(failure(#"{"rules": {}, "other": 1}"#)?.reason.contains("exactly one key") == true)
        #expect(failure("{\"rules\": {} /* open")?.reason == "the comment is not closed")
        // Nested thousands deep: an error naming where, not a crash; 32 locations deep is fine.
        let deep = 100_000
        let tooDeep = #"{"rules":"# + String(repeating: #"{"a":"#, count: deep) + "{}" + String(repeating: "}", count: deep) + "}"
        #expect(failure(tooDeep)?.reason.contains("deeper than \(RulesDocument.maxNesting) levels") == true)
        #expect(failure(#"{"rules": {"a": {".indexOn": "# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}}}")?
            .reason.contains("deeper than") == true)
        let path = (0..<32).map { "k\($0)" }
        let thirtyTwo = #"{"rules":"# + path.map { #"{"\#($0)":"# }.joined() + #"{".read": true}"# + String(repeating: "}", count: 33)
        #expect(try Ruleset(text: thirtyTwo).read(Path(keys: path.map { ChildKey(unchecked: $0) }), auth: nil, now: 0, root: .empty).allowed)
    }

    @Test(".indexOn folds in: indexes by location, wildcards included")
    func indexes() throws {
        let ruleset = try rules(#"{"rules": {"scores": {".indexOn": ".value"}, "users": {"$uid": {"posts": {".indexOn": ["date", "ratings/pos"]}}}}}"#)
        #expect(ruleset.indexes(at: "scores") == [.value])
        #expect(ruleset.indexes(at: "users/x/posts") == [.child("date"), .child("ratings/pos")])
        #expect(ruleset.indexes(at: "users").isEmpty)
    }
}
