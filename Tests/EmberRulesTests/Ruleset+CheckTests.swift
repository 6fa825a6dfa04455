import EmberCore
@testable import EmberRules
import EmberTestSupport
import Testing

/// The server's lean check (``Ruleset/check(_:reads:coverage:)``) against the explaining
/// ``Ruleset/decide(_:tracing:reads:)`` that `explain` re-runs: the same verdict, the same path
/// refused, the same rules counted, the same data read (all of it when allowed; enough to
/// explain it again when refused), over every combination of a set of
/// paths, values, users and existing data.
@Suite("Ruleset: the lean check")
struct RulesetCheckTests {
    static let document = #"""
        {"rules": {
          ".read": "auth != null && auth.admin === true",
          "public": {".read": true, ".write": "auth != null", ".validate": "newData.hasChildren() || !newData.exists() || newData.isString()"},
          "users": {
            ".validate": "newData.hasChildren()",
            "$uid": {
              ".read": "$uid === auth.uid",
              ".write": "$uid === auth.uid || root.child('admins').child(auth.uid).exists()",
              ".validate": "newData.hasChildren(['name']) || !data.exists()",
              "name": {".validate": "newData.isString() && newData.val().length < 8"},
              "age": {".validate": "newData.isNumber() && newData.val() >= 0"},
              "$other": {".validate": "newData.val() !== 'forbidden'"}
            }
          },
          "rooms": {"$room": {
            ".read": "root.child('members/' + $room + '/' + auth.uid).exists()",
            "$message": {
              ".write": "!data.exists() && newData.child('uid').val() === auth.uid",
              ".validate": "newData.child('text').val().length > 0",
              "uid": {".validate": "newData.val() === auth.uid"}
            }
          }},
          "broken": {".write": "auth.uid.length > 0 && data.val() < 5", ".read": "query.limitToFirst <= 10"}
        }}
        """#

    static let paths: [Path] = [
        .root, "public", "public/a", "users", "users/alice", "users/alice/name", "users/alice/age", "users/alice/x",
        "users/bob", "users/bob/name", "rooms/r1/m1", "rooms/r1/m1/uid", "rooms/r1", "broken", "broken/x", "elsewhere/deep",
    ]

    static let values: [String] = [
        "null", "1", #""hi""#, #"{"name":"Al"}"#, #"{"name":"Alexander"}"#, #"{"name":"Al","age":-1}"#,
        #"{"name":"Al","x":"forbidden"}"#, #"{"alice":{"name":"Al"},"bob":{"age":3}}"#, #"{"uid":"alice","text":"yo"}"#,
        #"{"uid":"bob","text":""}"#, #"{"m1":{"uid":"alice","text":"a"}}"#,
    ]

    static let users: [JSONValue?] = [
        nil, .object([("uid", .string("alice"))]), .object([("uid", .string("carol")), ("admin", .bool(true))]),
        .object([("uid", .string("dave"))]),
    ]

    static let before = json(#"""
        {"admins": {"dave": true}, "members": {"r1": {"alice": true}},
         "users": {"bob": {"name": "Bob"}}, "rooms": {"r1": {"m0": {"uid": "bob", "text": "hi"}}}}
        """#)

    /// Runs `request` both ways; records any difference.
    private func compare(_ ruleset: Ruleset, _ request: RuleRequest, _ label: String) {
        var leanReads = RuleReads()
        var leanCoverage = RuleCoverage(ruleCount: ruleset.entries.count)
        let refused = ruleset.check(request, reads: &leanReads, coverage: &leanCoverage)
        var reads = RuleReads()
        let decisions = ruleset.decide(request, reads: &reads)
        var coverage = RuleCoverage(ruleCount: ruleset.entries.count)
        coverage.record(decisions)
        #expect(refused == decisions.first(where: { !$0.allowed })?.path, "\(label): the path refused")
        for id in ruleset.entries.indices {
            #expect(leanCoverage[id] == coverage[id], "\(label): the counts of \(ruleset.entries[id].rulePath) \(ruleset.entries[id].kind)")
        }
        #expect(Set(leanReads.before.map(\.path)) == Set(reads.before.map(\.path)), "\(label): the data read before")
        if refused == nil {
            #expect(Set(leanReads.after.map(\.path)) == Set(reads.after.map(\.path)), "\(label): the new data read")
        }
        // What the lean check kept is enough to explain it: evaluated again from the kept
        // reads, the decisions come out the same.
        let kept = ruleset.decide(request.keeping(leanReads))
        #expect(kept.map(\.allowed) == decisions.map(\.allowed), "\(label): explained from what was kept")
    }

    @Test("every write of every value at every path by every user, and every read: the same outcome, counts and reads")
    func agreesWithDecide() throws {
        let ruleset = try Ruleset(text: Self.document)
        var compared = 0
        for auth in Self.users {
            for path in Self.paths {
                compare(ruleset, RuleRequest(.read(path, RuleQuery()), auth: auth, now: 1, root: Self.before), "read \(path) as \(String(describing: auth))")
                for value in Self.values {
                    var after = Self.before
                    after.set(json(value), at: path)
                    compare(
                        ruleset, RuleRequest(.write([path]), auth: auth, now: 1, root: Self.before, newRoot: after),
                        "write \(value) at \(path) as \(String(describing: auth))")
                    compared += 1
                }
            }
        }
        #expect(compared == Self.users.count * Self.paths.count * Self.values.count)
    }

    @Test("a multi-path update stops at the first path refused, both ways")
    func multiPath() throws {
        let ruleset = try Ruleset(text: Self.document)
        let alice: JSONValue = .object([("uid", .string("alice"))])
        for order in [["users/alice/name", "users/bob/name", "public/a"], ["public/a", "users/alice/age", "rooms/r1/m9"]] {
            let paths = order.map { Path(unchecked: $0) }
            var after = Self.before
            for path in paths { after.set(json(#""v""#), at: path) }
            compare(ruleset, RuleRequest(.write(paths), auth: alice, now: 1, root: Self.before, newRoot: after), "update \(order)")
        }
    }
}
