import EmberCore
import EmberServer
import Testing

@Suite struct IndexRulesTests {
    private func error(_ text: String) -> DatabaseError? {
        do throws(DatabaseError) {
            _ = try IndexRules(jsonText: text)
            return nil
        } catch {
            return error
        }
    }

    @Test func dinosaurs() throws {
        let rules = try IndexRules(jsonText: #"""
            {"rules": {"dinosaurs": {".indexOn": ["height", "length"]}, "scores": {".indexOn": ".value"}}}
            """#)
        #expect(!rules.isEmpty)
        #expect(rules.indexes(at: "dinosaurs") == [.child("height"), .child("length")])
        #expect(rules.indexes(at: "/scores") == [.value])
        #expect(rules.indexes(at: .root) == [])
        #expect(rules.indexes(at: "dinosaurs/rex") == [])
        #expect(rules.indexes(at: "other") == [])
        #expect(rules.isIndexed(.child("height"), at: "dinosaurs"))
        #expect(!rules.isIndexed(.child("weight"), at: "dinosaurs"))
        #expect(!rules.isIndexed(.value, at: "dinosaurs"))
        #expect(rules.isIndexed(.key, at: "dinosaurs") && rules.isIndexed(.priority, at: "anywhere/else"))
    }

    @Test func bareTreeNestedPathsAndOtherRules() throws {
        let rules = try IndexRules(json: JSONValue(parsing: #"""
            {".read": true,
             "dinodb": {".write": "auth != null",
                        "dinosaurs": {".indexOn": ["height", "ratings/pos", ".key", ".priority", "height"], ".validate": "newData.hasChildren()"},
                        "scores": {".indexOn": [".value"]}}}
            """#))
        #expect(rules.indexes(at: "dinodb/dinosaurs") == [.child("height"), .child("ratings/pos")])
        #expect(rules.indexes(at: "dinodb/scores") == [.value])
        #expect(rules.indexes(at: "dinodb") == [])
    }

    @Test func wildcardsMatchAnyKeyAndNamedKeysWin() throws {
        let rules = try IndexRules(jsonText: #"""
            {"rules": {"users": {"$uid": {"posts": {".indexOn": "date"}, ".indexOn": "age"},
                                 "admin": {".indexOn": "level"}}}}
            """#)
        #expect(rules.indexes(at: "users/alice/posts") == [.child("date")])
        #expect(rules.indexes(at: "users/bob/posts") == [.child("date")])
        // The `.indexOn` inside `$uid` indexes the children of each user.
        #expect(rules.indexes(at: "users/alice") == [.child("age")])
        #expect(rules.indexes(at: "users") == [])
        #expect(rules.indexes(at: "users/alice/posts/p1") == [])
        // `admin` is named, so the wildcard's rules do not apply to it.
        #expect(rules.indexes(at: "users/admin") == [.child("level")])
        #expect(rules.indexes(at: "users/admin/posts") == [])
    }

    @Test func emptyRulesAndComments() throws {
        #expect(IndexRules.none.isEmpty)
        #expect(IndexRules.none.indexes(at: "a") == [])
        #expect(try IndexRules(jsonText: #"{"rules": {".read": true, "a": {"$b": {".write": false}}}}"#).isEmpty)
        #expect(try IndexRules(jsonText: "{}").isEmpty)
        let commented = try IndexRules(jsonText: """
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

    @Test func badShapesNameThePlace() throws {
        let number = try #require(error(#"{"rules": {"scores": {".indexOn": 5}}}"#))
        #expect(number.code == "invalid_rules")
        #expect(number.message.contains("/rules/scores/.indexOn"), "\(number.message)")
        #expect(number.message.contains("a number"), "\(number.message)")

        let element = try #require(error(#"{"a": {".indexOn": ["x", true]}}"#))
        #expect(element.message.contains("/a/.indexOn[1]"), "\(element.message)")

        let badPath = try #require(error(#"{"rules": {"a": {".indexOn": "b#c"}}}"#))
        #expect(badPath.code == "invalid_rules")
        #expect(badPath.message.contains("b#c"), "\(badPath.message)")
        #expect(error(#"{"rules": {"a": {".indexOn": ""}}}"#)?.code == "invalid_rules")
        #expect(error(#"{"rules": {"a": {".indexOn": ".length"}}}"#)?.code == "invalid_rules")

        let notObject = try #require(error(#"{"rules": {"a": {"b": true}}}"#))
        #expect(notObject.message.contains("/rules/a/b"), "\(notObject.message)")
        #expect(error(#"[1, 2]"#)?.code == "invalid_rules")
        #expect(error(#"{"a#b": {}}"#)?.code == "invalid_rules")

        let twoWildcards = try #require(error(#"{"rules": {"users": {"$a": {}, "$b": {}}}}"#))
        #expect(twoWildcards.message.contains("/rules/users"), "\(twoWildcards.message)")
        #expect(error(#"{"rules": {"$a": {"x": {"$a": {}}}}}"#)?.code == "invalid_rules")
        #expect(error(#"{"rules": {"$": {}}}"#)?.code == "invalid_rules")

        #expect(error(#"{"rules": {"a": }}"#)?.code == "malformed_json")
        #expect(error(#"{"rules": {} /* unterminated"#)?.code == "malformed_json")
    }
}
