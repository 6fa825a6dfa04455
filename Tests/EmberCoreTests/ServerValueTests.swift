import EmberCore
import Testing

@Suite struct ServerValueTests {
    private func node(_ text: String) -> Node { try! Node(jsonText: text) }

    @Test func timestampsResolveToServerTime() {
        let write = node(#"{"at": {".sv": "timestamp"}, "n": 1}"#)
        #expect(write.containsServerValues)
        let resolved = write.resolvingServerValues(existing: .empty, serverTime: 1234)
        #expect(resolved == node(#"{"at": 1234, "n": 1}"#))
        #expect(!resolved.containsServerValues)
    }

    @Test func incrementsAddToTheExistingNumber() {
        let increment = node(#"{".sv": {"increment": 5}}"#)
        #expect(increment.resolvingServerValues(existing: node("10"), serverTime: 0) == node("15"))
        #expect(increment.resolvingServerValues(existing: .empty, serverTime: 0) == node("5"))
        #expect(increment.resolvingServerValues(existing: node("\"text\""), serverTime: 0) == node("5"))
        #expect(increment.resolvingServerValues(existing: node("2.5"), serverTime: 0) == node("7.5"))
        let fractional = node(#"{".sv": {"increment": 0.5}}"#)
        #expect(fractional.resolvingServerValues(existing: node("1.5"), serverTime: 0).leafValue == .int(2))
    }

    @Test func integerIncrementsOverflowToDoubles() {
        let increment = Node(.deferred(.increment(by: 1)))
        let resolved = increment.resolvingServerValues(existing: Node(.int(Int64.max)), serverTime: 0)
        #expect(resolved.leafValue == .double(9223372036854775808.0))
    }

    @Test func compoundWritesResolveAgainstTheirOwnLocations() {
        let existing = node(#"{"a": {"count": 3}, "b": 1}"#)
        let write = CompoundWrite(merge: [("/a/count", node(#"{".sv": {"increment": 1}}"#)), ("/b", node(#"{".sv": "timestamp"}"#))])
        #expect(write.resolvingServerValues(existing: existing, serverTime: 99).apply(to: existing) == node(#"{"a": {"count": 4}, "b": 99}"#))
    }
}
