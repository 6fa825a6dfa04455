import Testing

@testable import EmberNetworkShared

/// The administrator's credential of `ember serve`: `owner` by default, or only a secret.
struct AdminCredentialTests {
    @Test("owner takes the emulator's word only; a secret takes itself only, not owner, a prefix or an extension of it")
    func accepts() {
        #expect(AdminCredential.owner.accepts("owner"))
        #expect(!AdminCredential.owner.accepts("Owner"))
        #expect(!AdminCredential.owner.accepts(""))
        let secret = AdminCredential.secret("0123456789abcdef-secret")
        #expect(secret.accepts("0123456789abcdef-secret"))
        for wrong in ["owner", "", "0123456789abcdef-secre", "0123456789abcdef-secretX", "1123456789abcdef-secret", "0123456789abcdef-secreT"] {
            #expect(!secret.accepts(wrong), "\(wrong)")
        }
        // Lengths that differ by 256 are not mistaken for equal ones.
        let long = String(repeating: "a", count: 300)
        #expect(!AdminCredential.secret(String(repeating: "a", count: 44)).accepts(long))
    }

    @Test("a secret must be at least 16 characters, without spaces or control characters, and not owner")
    func problems() {
        #expect(AdminCredential.problem(with: "0123456789abcdef") == nil)
        #expect(AdminCredential.problem(with: "owner")?.contains("owner") == true)
        #expect(AdminCredential.problem(with: "short")?.contains("at least 16") == true)
        #expect(AdminCredential.problem(with: "0123456789 abcdef")?.contains("space") == true)
        #expect(AdminCredential.problem(with: "0123456789abcdef\n")?.contains("control") == true)
    }
}
