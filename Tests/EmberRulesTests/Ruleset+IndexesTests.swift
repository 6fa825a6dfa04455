import EmberCore
import EmberRules
import Testing

/// `.indexOn` in a rules document: the indexes the server builds for a location's children
/// (Firebase's "Index your data"), and the errors of a bad declaration.
@Suite("Ruleset indexes")
struct RulesetIndexesTests {
    private func error(_ text: String) -> RulesError? {
        do throws(RulesError) {
            _ = try Ruleset(text: text)
            return nil
        } catch {
            return error
        }
    }

    @Test("Firebase's dinosaur example")
    func dinosaurs() throws {
        let rules = try Ruleset(text: #"""
            {"rules": {"dinosaurs": {".indexOn": ["height", "length"]}, "scores": {".indexOn": ".value"}}}
            """#)
        #expect(rules.indexes(at: "dinosaurs") == [.child("height"), .child("length")])
        #expect(rules.indexes(at: "/scores") == [.value])
        #expect(rules.indexes(at: .root) == [])
        #expect(rules.indexes(at: "dinosaurs/rex") == [])
        #expect(rules.indexes(at: "other") == [])
    }

    @Test("nested paths, .key and .priority (always indexed) left out, duplicates once, beside other rules")
    func nestedPathsAndOtherRules() throws {
        let rules = try Ruleset(text: #"""
            {"rules": {".read": true,
             "dinodb": {".write": "auth != null",
                        "dinosaurs": {".indexOn": ["height", "ratings/pos", ".key", ".priority", "height"], ".validate": "newData.hasChildren()"},
                        "scores": {".indexOn": [".value"]}}}}
            """#)
        #expect(rules.indexes(at: "dinodb/dinosaurs") == [.child("height"), .child("ratings/pos")])
        #expect(rules.indexes(at: "dinodb/scores") == [.value])
        #expect(rules.indexes(at: "dinodb") == [])
    }

    @Test("wildcards match any key; named keys win")
    func wildcards() throws {
        let rules = try Ruleset(text: #"""
            {"rules": {"users": {"$uid": {"posts": {".indexOn": "date"}, ".indexOn": "age"},
                                 "admin": {".indexOn": "level"}}}}
            """#)
        #expect(rules.indexes(at: "users/alice/posts") == [.child("date")])
        #expect(rules.indexes(at: "users/bob/posts") == [.child("date")])
        #expect(rules.indexes(at: "users/alice") == [.child("age")])
        #expect(rules.indexes(at: "users") == [])
        #expect(rules.indexes(at: "users/alice/posts/p1") == [])
        #expect(rules.indexes(at: "users/admin") == [.child("level")])
        #expect(rules.indexes(at: "users/admin/posts") == [])
    }

    @Test("the open rules index nothing; comments are allowed")
    func openRulesAndComments() throws {
        #expect(Ruleset.open.indexes(at: "a") == [])
        let commented = try Ruleset(text: """
            {
              // Firebase rules files may have comments.
              "rules": {
                /* the scores, by value */
                "scores": {".indexOn": ".value", ".read": "'//not a comment' != ''"}
              }
            }
            """)
        #expect(commented.indexes(at: "scores") == [.value])
    }

    @Test("a bad .indexOn names its line, column and place")
    func badDeclarations() throws {
        let number = try #require(error(#"{"rules": {"scores": {".indexOn": 5}}}"#))
        #expect(number.code == "invalid_rules")
        #expect(number.message == "1:35: .indexOn is a child path, \".value\", or a list of them, not a number (at rules/scores/.indexOn)")
        let element = try #require(error(#"{"rules": {"a": {".indexOn": ["x", true]}}}"#))
        #expect(element.message.contains("(at rules/a/.indexOn)"), "\(element.message)")
        #expect(element.message.hasPrefix("1:36:"), "\(element.message)")
        let badPath = try #require(error(#"{"rules": {"a": {".indexOn": "b#c"}}}"#))
        #expect(badPath.message.contains("b#c"), "\(badPath.message)")
        #expect(error(#"{"rules": {"a": {".indexOn": ""}}}"#) != nil)
        #expect(error(#"{"rules": {"a": {".indexOn": ".length"}}}"#) != nil)
    }
}
