import EmberCore
import Testing

@Suite struct PathTests {
    @Test func parsingIgnoresEmptySegments() throws {
        #expect(try Path(validating: "/users//alice/").description == "/users/alice")
        #expect(try Path(validating: "").isEmpty)
        #expect(try Path(validating: "/").description == "/")
    }

    @Test func relationships() {
        let users: Path = "/users"
        let alice: Path = "/users/alice/name"
        #expect(users.contains(alice))
        #expect(!alice.contains(users))
        #expect(users.relative(to: alice)?.description == "/alice/name")
        #expect(alice.parent?.description == "/users/alice")
        #expect(Path.root.parent == nil)
        #expect(alice.popFront.description == "/alice/name")
        #expect(users.child("bob").description == "/users/bob")
    }

    @Test func infoIsAllowedOnlyAtTheRoot() throws {
        #expect(try Path(validating: "/.info/connected").front == .info)
        #expect(throws: DatabaseError.self) { try Path(validating: "/a/.info") }
    }

    @Test func depthLimit() throws {
        let deepest = (1...31).map { "k\($0)" }.joined(separator: "/")
        #expect(try Path(validating: deepest).count == 31)
        do {
            _ = try Path(validating: deepest + "/k32")
            Issue.record("a 32-level path was accepted")
        } catch {
            #expect(error.code == "path_too_deep")
            #expect(error.message.contains("is 32 levels deep; the limit is 31 levels"))
        }
    }

    @Test func invalidSegmentIsNamed() {
        do {
            _ = try Path(validating: "/users/al#ice/x")
            Issue.record("accepted")
        } catch {
            #expect(error.code == "invalid_path")
            #expect(error.message == "invalid path \"/users/al#ice/x\": segment \"al#ice\": a key must not contain \"#\"")
        }
    }

    @Test func orderIsKeyOrderWithParentsFirst() {
        let paths: [Path] = ["/b", "/a/10", "/a", "/a/9", "/"]
        #expect(paths.sorted().map(\.description) == ["/", "/a", "/a/9", "/a/10", "/b"])
    }
}
