import EmberCore
import Testing

/// An error stored as its code, message and path reads back as it was, whatever its kind put
/// the location in its message.
@Suite struct DatabaseErrorStoredTests {
    @Test func aStoredErrorReadsBackWordForWord() {
        let errors: [DatabaseError] = [
            .permissionDenied(at: "rooms/r1"), .invalidValue("a key must not contain \".\"", at: "a/b"),
            .other(code: "datastale", message: "the data changed", at: "x"), .other(code: "x", message: "nowhere"),
        ]
        for error in errors {
            let restored = DatabaseError.restored(code: error.code, message: error.message, at: error.path)
            #expect(restored.code == error.code)
            #expect(restored.message == error.message)
            #expect(restored.path == error.path)
        }
    }
}
