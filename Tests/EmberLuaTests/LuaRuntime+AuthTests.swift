import EmberClient
import EmberCore
import EmberInstance
import EmberLua
import EmberRules
import EmberServer
import Testing

/// `db:auth`, `db:signOut`, `db.uid` and `ember.client(name, {auth = ...})` against rules.
@Suite struct LuaRuntimeAuthTests {
    static let rules = #"""
        {"rules": {"users": {"$uid": {".read": "$uid === auth.uid", ".write": "$uid === auth.uid",
                                      "role": {".validate": "auth.token.admin === true || newData.val() !== 'admin'"}}}}}
        """#

    @Test func signingInAndOutDecidesWhatTheRulesAllow() throws {
        let fixture = try LuaRuntimeFixture()
        try fixture.ember.server.setRules(Ruleset(text: Self.rules))
        let results = try fixture.run("""
            local before = db.uid
            local _, denied = db:ref("users/alice/x"):set(1):wait()
            db:auth({uid = "alice", email = "a@x"})
            local ok = db:ref("users/alice/x"):set(2):wait()
            local uid = db.uid
            db:signOut()
            local _, again = db:ref("users/alice/x"):set(3):wait()
            return before, denied.code, ok, uid, db.uid, again.code
            """)
        #expect(results == [.nil, .json("permission_denied"), .json(true), .json("alice"), .nil, .json("permission_denied")])
        #expect(fixture.ember.server.value(at: "users/alice/x") == Node(.int(2)))
    }

    @Test func aClientCreatedWithAuthIsSignedInFromItsFirstRequest() throws {
        let fixture = try LuaRuntimeFixture()
        try fixture.ember.server.setRules(Ruleset(text: Self.rules))
        let results = try fixture.run("""
            local carol = ember.client("carol", {auth = {uid = "carol", admin = true}})
            local ok = carol:ref("users/carol/role"):set("admin"):wait()
            local dave = ember.client("dave", {auth = {uid = "dave"}})
            local _, err = dave:ref("users/dave/role"):set("admin"):wait()
            return carol.uid, ok, err.code
            """)
        #expect(results == [.json("carol"), .json(true), .json("permission_denied")])
    }

    @Test func badClaimsAndOptionsAreErrorsWithCodes() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local function code(f) local ok, e = pcall(f); return ok and "no error" or e.code end
            return code(function() db:auth("alice") end), code(function() db:auth({name = "x"}) end),
              code(function() db:auth({uid = "a"}, {expires = -1}) end), code(function() ember.client("x", {auth = 5}) end)
            """)
        #expect(results == [.json("invalid_argument"), .json("invalid_argument"), .json("invalid_argument"), .json("invalid_argument")])
    }

    @Test func aTokenThatExpiredHoldsWritesUntilANewOne() throws {
        let fixture = try LuaRuntimeFixture()
        try fixture.ember.server.setRules(Ruleset(text: Self.rules))
        let results = try fixture.run("""
            db:auth({uid = "alice"}, {expires = 1000})
            ember.sleep(1500)
            local landed = false
            db:ref("users/alice/x"):set(1, function(err) landed = err == nil or err.code end)
            ember.sleep(100)
            local before = landed
            db:auth({uid = "alice"})
            ember.flush()
            return before, landed
            """)
        #expect(results == [.json(false), .json(true)])
    }
}
