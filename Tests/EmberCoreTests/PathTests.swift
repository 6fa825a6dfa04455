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

    @Test("appending a relative path gives what parsing it and appending gives, one key or many, and the same errors",
        arguments: ["b", "7", "007", "-3", "a/b", "/a/", "", "/", ".info", "a/.info", "x.y", "a#b", "$k", "a//b", "é"])
    func appendingValidating(relative: String) {
        let base: Path = "/users/alice"
        let expected = Result { () throws(DatabaseError) in
            let full = base.appending(try Path(validating: relative))
            try full.checkDepth()
            return full
        }
        let appended = Result { () throws(DatabaseError) in try base.appending(validating: relative) }
        switch (expected, appended) {
        case (.success(let a), .success(let b)):
            #expect(a == b)
            #expect(a.keys.map(\.name) == b.keys.map(\.name))
        case (.failure(let a), .failure(let b)):
            #expect(a.code == b.code)
            #expect(a.message == b.message)
        default:
            Issue.record("\(relative): \(expected) vs \(appended)")
        }
    }

    @Test func appendingOneKeyPastTheDepthLimitIsTooDeep() throws {
        let deepest = Path(keys: (0..<Limits.maxDepth).map { ChildKey(unchecked: "k\($0)") })
        #expect(throws: DatabaseError.self) { try deepest.appending(validating: "one") }
        let below = try Path(keys: Array(deepest.keys.dropLast())).appending(validating: "last")
        #expect(below.count == Limits.maxDepth)
    }
}
