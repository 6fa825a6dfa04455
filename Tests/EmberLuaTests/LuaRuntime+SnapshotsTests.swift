import EmberClient
import EmberCore
import EmberInstance
import EmberLua
import EmberServer
import EmberWire
import Testing
/// Snapshots from Lua.
@Suite struct LuaRuntimeSnapshotsTests {
    @Test func everySnapshotMethod() throws {
        let fixture = try LuaRuntimeFixture()
        let results = try fixture.run("""
            local r = db:ref("snap")
            r:set({b = {x = 1}, a = 2, c = "three"}):wait()
            local s = r:get()
            local keys = {}
            for child in s:children() do keys[#keys + 1] = child.key end
            local visited = {}
            local stopped = s:forEach(function(child) visited[#visited + 1] = child.key return child.key == "b" end)
            return s.key, s.ref.path, s:exists(), s:child("b/x"):val(), s:child("nope"):exists(), s:hasChild("b/x"),
              s:hasChild("z"), s:hasChildren(), s:numChildren(), table.concat(keys, ","), stopped, table.concat(visited, ","),
              s:child("a"):hasChildren(), tostring(s:child("b")), s:getPriority()
            """)
        #expect(results == [
            .json("snap"), .json("/snap"), .json(true), .json(1), .json(false), .json(true), .json(false), .json(true),
            .json(3), .json("a,b,c"), .json(true), .json("a,b"), .json(false), .json("{\n  \"x\": 1\n}"), .nil,
        ])
    }

    @Test func aChunkReturningASnapshotGivesItsValue() throws {
        let fixture = try LuaRuntimeFixture()
        #expect(try fixture.run("db:ref('v'):set({1, 2}):wait() return db:ref('v'):get(), db:ref('v')") == [
            .json([1, 2]), .text("Reference(/v)"),
        ])
    }
}
