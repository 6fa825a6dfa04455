import EmberClient
import EmberCore
import EmberInstance
import EmberLua
import EmberServer
import EmberWire
import Testing
/// References and queries from Lua: navigation, modifiers, reading, listening.
@Suite struct LuaRuntimeReferencesTests {
    @Test func navigation() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local r = db:ref("users/alice")
            return r.key, r.path, r:parent().path, r:root().path, r:root().key, r:child("a/b").path,
              tostring(r), r == db:ref("users"):child("alice"), r:parent():parent():parent(), tostring(db:ref())
            """)
        #expect(results == [
            .json("alice"), .json("/users/alice"), .json("/users"), .json("/"), .nil, .json("/users/alice/a/b"),
            .json("Reference(/users/alice)"), .json(true), .nil, .json("Reference(/)"),
        ])
        let error = try #require(throws: LuaError.self) { try fixture.run("db:ref('a'):child('bad.key')") }
        #expect(error.message.contains("ref:child"))
        let wrongCall = try #require(throws: LuaError.self) { try fixture.run("db:ref('a').set(1)") }
        #expect(wrongCall.message.contains("call it with ':'"))
    }

    @Test func queriesOrderAndWindow() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local scores = db:ref("scores")
            scores:set({bruhathkayosaurus = 55, lambeosaurus = 21, linhenykus = 80, pterodactyl = 93,
              stegosaurus = 5, triceratops = 22}):wait()
            local top = scores:orderByValue():limitToLast(4)
            local keys = {}
            for child in top:get():children() do keys[#keys + 1] = child.key end
            local low = {}
            for child in scores:orderByValue():endAt(21):get():children() do low[#low + 1] = child.key end
            local between = scores:orderByKey():startAfter("linhenykus"):endBefore("triceratops"):get()
            return table.concat(keys, ","), table.concat(low, ","), between:numChildren(), tostring(top), top.path,
              top.ref.path, scores:orderByValue():equalTo(22):get():val().triceratops
            """)
        #expect(results == [
            .json("triceratops,bruhathkayosaurus,linhenykus,pterodactyl"), .json("stegosaurus,lambeosaurus"), .json(2),
            .json("Query(/scores orderBy value limitToLast 4)"), .json("/scores"), .json("/scores"), .json(22),
        ])
        let error = try #require(throws: LuaError.self) { try fixture.run("db:ref('s'):orderByValue():orderByKey()") }
        #expect(error.message.contains("query:orderByKey"))
        let limit = try #require(throws: LuaError.self) { try fixture.run("db:ref('s'):limitToLast(0)") }
        #expect(limit.message.contains("ref:limitToLast"))
    }

    @Test func onceAndChildEventsWithPreviousKeys() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local r = db:ref("list")
            local log = {}
            local h = r:orderByValue():on("child_added", function(s, prev) log[#log + 1] = s.key .. "<" .. tostring(prev) end)
            r:set({a = 3, b = 1, c = 2}):wait()
            r:child("d"):set(0)
            local snap = r:once("value")
            local removed = {}
            r:on("child_removed", function(s) removed[#removed + 1] = s.key end)
            r:child("a"):remove():wait()
            h:off()
            r:child("e"):set(9):wait()
            return table.concat(log, " "), snap:numChildren(), table.concat(removed, ","), h.active
            """)
        #expect(results == [.json("b<nil c<b a<c d<nil"), .json(4), .json("a"), .json(false)])
    }

    @Test func offByEventByHandleAndAllAndClose() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local r = db:ref("x")
            local count = {v = 0, c = 0, q = 0, closed = 0}
            r:on("value", function() count.v = count.v + 1 end)
            r:on("child_added", function() count.c = count.c + 1 end)
            local q = r:orderByKey():limitToFirst(1)
            q:on("value", function() count.q = count.q + 1 end)
            do
              local h <close> = r:on("value", function() count.closed = count.closed + 1 end)
            end                                 -- closed before the server answered
            ember.flush()                       -- the initial events: value (null) twice, no child
            r:off("value")                      -- every value listener at /x, the query's too
            r:set({k = 1}):wait()
            local afterEvent = count.v .. count.c .. count.q .. count.closed
            r:off()
            r:set({k = 2, j = 1}):wait()
            return afterEvent, count.v .. count.c .. count.q .. count.closed
            """)
        // the value listeners heard the initial event only, the child listener the write
        #expect(results == [.json("1110"), .json("1110")])
        #expect(fixture.runtime.listenerCount == 0)
    }

    @Test func keepSyncedAndInfoLocations() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local states = {}
            db:ref(".info/connected"):on("value", function(s) states[#states + 1] = tostring(s:val()) end)
            ember.flush()
            db:goOffline()
            db:goOnline()
            ember.flush()
            db:ref("pinned"):keepSynced(true)
            return table.concat(states, ","), math.type(db:ref(".info/serverTimeOffset"):get():val())
            """)
        // the client connects when the script first uses it
        #expect(results == [.json("false,true,false,true"), .json("integer")])
        #expect(fixture.ember.client(.main).activeListens.contains { $0.path == "/pinned" })
    }
}
