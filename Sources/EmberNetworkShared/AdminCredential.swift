import EmberCore

/// Which credential makes a client of `ember serve` its administrator (rules do not apply to
/// it): the emulator's `owner`, as Firebase's emulator and its Admin SDKs have it, or a secret
/// of the server's own (`ember serve --admin-token`), for a server that others can reach.
///
/// Over WebSocket the credential is a `gauth` request's; over REST an `auth=` parameter or an
/// `Authorization: Bearer` header. A database directory's local socket always takes `owner`:
/// only the directory's user can open it (the socket is made 0600).
public enum AdminCredential: Sendable, Equatable {
    /// The emulator's `owner` (the default): whoever reaches the server can be administrator,
    /// so it is meant for loopback.
    case owner
    /// Only this secret; `owner` is then an ordinary token (refused when tokens are verified).
    case secret(String)

    /// The word the emulator's clients send.
    public static let ownerWord = "owner"

    /// Whether `credential` is the administrator's, byte for byte (no Unicode normalisation). A secret is compared in time that does not
    /// depend on where the first difference is, so that timing does not reveal it.
    /// - Complexity: O(n) in the length of the longer of the two.
    public func accepts(_ credential: String) -> Bool {
        switch self {
        case .owner:
            return StringOrder.bytesEqual(credential, Self.ownerWord)
        case .secret(let secret):
            let given = Array(credential.utf8)
            let expected = Array(secret.utf8)
            var difference: UInt8 = 0
            for index in 0..<max(given.count, expected.count) {
                let left = index < given.count ? given[index] : 0
                let right = index < expected.count ? expected[index] : 0
                difference |= left ^ right
            }
            return difference == 0 && given.count == expected.count
        }
    }

    /// Why `secret` cannot be the server's administrator secret, if it cannot: empty, shorter
    /// than 16 characters, containing spaces or control characters, or `owner` itself.
    public static func problem(with secret: String) -> String? {
        if StringOrder.bytesEqual(secret, ownerWord) { return "it is the emulator's `owner`, which it replaces" }
        if secret.count < 16 { return "it has \(secret.count) characters; at least 16 are needed" }
        if secret.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
            return "it contains a space or a control character"
        }
        return nil
    }
}
