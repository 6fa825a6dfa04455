import EmberCore

/// A Firebase ID token as a client presents it: a JSON Web Token whose claims say who the user
/// is (`sub`), how they signed in (`firebase.sign_in_provider`) and until when it holds (`exp`).
///
/// Ember makes the unsigned tokens the Firebase emulator accepts (`alg: "none"`, an empty
/// signature), exactly as the Web SDK's `createMockUserToken` does
/// (firebase-js-sdk `packages/util/src/emulator.ts`), and reads any JWT's claims. Checking a
/// signature is the network server's business (a project must be configured); in one process
/// the server trusts the tokens of its own clients, as the emulator does.
///
/// ```swift
/// let token = try AuthToken.unsigned(claims: ["uid": "alice", "email": "a@x"], issuedAt: now, lifetime: 3_600_000)
/// token.auth   // {"uid": "alice", "provider": "custom", "token": {... "email": "a@x", "sub": "alice" ...}}
/// ```
public final class AuthToken: Sendable, Hashable {
    /// The token as sent on the wire: `header.payload.signature`.
    public let text: String
    /// The claims of its payload (an object).
    public let claims: JSONValue
    /// The user's id: the `sub` claim (or `user_id`).
    public let uid: String
    /// The sign-in provider (`firebase.sign_in_provider`), `custom` when the token says none.
    public let provider: String
    /// When the token stops holding, in milliseconds since 1970 (`exp` is in seconds).
    public let expiresAt: Int64
    /// The `auth` variable of the rules for this token: `uid`, `provider`, and every claim in
    /// `token` (Firebase's rules reference, "auth"). Made once: every rule evaluated for the
    /// token's connection reads it.
    public let auth: JSONValue
    /// Whether the token never expires (an emulator mock token, ``isExpired(at:)``): decided
    /// once, as every message of its connection asks.
    private let neverExpires: Bool

    /// How long a token holds unless told otherwise: an hour, as Firebase ID tokens.
    public static let defaultLifetime: Int64 = 3_600_000

    /// Reads a token's claims.
    /// - Throws: `invalid_token` when it is not three base64url parts whose middle one is a JSON
    ///   object with a non-empty string `sub` (or `user_id`) and a numeric `exp`.
    public init(parsing text: String) throws(DatabaseError) {
        // A class, not a struct: every message of a signed-in connection passes its token
        // around, and a class is copied with one reference count, not one per field.
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw Self.invalid("a token has three parts separated by '.', this one has \(parts.count)") }
        guard let bytes = Base64URL.decode(parts[1]) else { throw Self.invalid("the token's claims are not base64url") }
        let claims: JSONValue
        do {
            claims = try JSONValue(parsing: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw Self.invalid("the token's claims are not JSON: \(error.message)")
        }
        guard case .object = claims else { throw Self.invalid("the token's claims are not an object") }
        guard case .string(let subject)? = claims["sub"] ?? claims["user_id"], !subject.isEmpty else {
            throw Self.invalid("the token names no user (no \"sub\" claim)")
        }
        guard let expiry = Self.seconds(claims["exp"]) else { throw Self.invalid("the token has no expiry (no numeric \"exp\" claim)") }
        guard expiry < Int64.max / 1000 else { throw Self.invalid("the token's expiry is out of range") }
        self.text = text
        self.claims = claims
        uid = subject
        if case .string(let name)? = claims["firebase"]?["sign_in_provider"] { provider = name } else { provider = "custom" }
        expiresAt = expiry * 1000
        auth = .object([("uid", .string(uid)), ("provider", .string(provider)), ("token", claims)])
        if case .int(0)? = claims["iat"], text.hasSuffix(".") { neverExpires = true } else { neverExpires = false }
    }

    /// An unsigned token for the user `claims` describe, as the emulator's clients make them.
    ///
    /// `uid` names the user (or `sub`/`user_id`); `provider` the sign-in provider (`custom` when
    /// absent); every other member is a claim of its own (`email`, `name`, a custom claim such
    /// as `admin`). `issuedAt` is in milliseconds; the token expires `lifetime` milliseconds
    /// later, rounded up to the second (`exp` counts seconds).
    /// - Throws: `invalid_argument` when `claims` is not an object naming a user in a non-empty
    ///   string of at most 128 characters (Firebase's limit for a uid), or `lifetime` is not
    ///   between 1 ms and `Limits.maxTokenLifetime`.
    public static func unsigned(
        claims: JSONValue, issuedAt: Int64, lifetime: Int64 = defaultLifetime, project: String = "demo-project"
    ) throws(DatabaseError) -> AuthToken {
        guard case .object(let members) = claims else {
            throw .other(code: ErrorCode.invalidArgument, message: "auth needs an object of claims such as {uid: \"alice\"}")
        }
        guard case .string(let uid)? = claims["uid"] ?? claims["sub"] ?? claims["user_id"] else {
            throw .other(code: ErrorCode.invalidArgument, message: "auth needs a uid: a string naming the user, such as {uid: \"alice\"}")
        }
        guard !uid.isEmpty, uid.count <= 128 else {
            throw .other(code: ErrorCode.invalidArgument, message: "a uid is 1 to 128 characters long, not \(uid.count)")
        }
        guard lifetime > 0, lifetime <= Limits.maxTokenLifetime else {
            throw .other(
                code: ErrorCode.invalidArgument,
                message: "a token's lifetime is 1 to \(Limits.maxTokenLifetime) milliseconds (10 years), not \(lifetime)")
        }
        var provider = "custom"
        if let given = claims["provider"] {
            guard case .string(let name) = given, !name.isEmpty else {
                throw .other(code: ErrorCode.invalidArgument, message: "provider must be a non-empty string such as \"password\"")
            }
            provider = name
        }
        let iat = issuedAt / 1000
        // Rounded up: the token holds at least `lifetime` (a second of `exp` may add to it).
        let expires = (issuedAt + lifetime + 999) / 1000
        var payload: [(key: String, value: JSONValue)] = [
            ("iss", .string("https://securetoken.google.com/\(project)")), ("aud", .string(project)), ("iat", .int(iat)),
            ("exp", .int(expires)), ("auth_time", .int(iat)), ("sub", .string(uid)), ("user_id", .string(uid)),
            ("firebase", .object([("sign_in_provider", .string(provider)), ("identities", .object([]))])),
        ]
        for member in members where !["uid", "provider", "sub", "user_id"].contains(member.key) {
            if let index = payload.firstIndex(where: { $0.key == member.key }) {
                payload[index].value = member.value
            } else {
                payload.append(member)
            }
        }
        let header = #"{"alg":"none","type":"JWT"}"#
        let text = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(JSONValue.object(payload).serialized().utf8)) + "."
        return try AuthToken(parsing: text)
    }

    /// Whether the token has expired at `now` (milliseconds).
    ///
    /// An unsigned token issued at time 0 never expires: it is what the Web SDK's
    /// `createMockUserToken` makes when the app gives no dates (`iat` 0, `exp` 3600: firebase-js-sdk
    /// `packages/util/src/emulator.ts`), and the Firebase emulator accepts it; Ember's own
    /// tokens carry the time they were made.
    /// - Complexity: O(1).
    public func isExpired(at now: Int64) -> Bool { !neverExpires && now >= expiresAt }

    /// Two tokens are equal when their text is, byte for byte (not by Unicode canonical
    /// equivalence, as `String`'s `==`).
    public static func == (lhs: AuthToken, rhs: AuthToken) -> Bool { lhs === rhs || StringOrder.bytesEqual(lhs.text, rhs.text) }

    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// When the token expires (milliseconds), or `nil` when it never does.
    public var expiry: Int64? { neverExpires ? nil : expiresAt }

    /// The claims a person set (the uid, and what is not one of the standard claims), to show
    /// who a client is: `{uid: "alice", email: "a@x"}`.
    public var shownClaims: JSONValue {
        let standard: Set<String> = ["iss", "aud", "iat", "exp", "auth_time", "sub", "user_id", "firebase"]
        guard case .object(let members) = claims else { return .object([("uid", .string(uid))]) }
        var shown: [(key: String, value: JSONValue)] = [("uid", .string(uid))]
        if provider != "custom" { shown.append(("provider", .string(provider))) }
        shown += members.filter { !standard.contains($0.key) }
        return .object(shown)
    }

    private static func seconds(_ value: JSONValue?) -> Int64? {
        switch value {
        case .int(let seconds)?: seconds
        case .double(let seconds)? where seconds.isFinite && abs(seconds) < 1e12: Int64(seconds)
        default: nil
        }
    }

    private static func invalid(_ reason: String) -> DatabaseError {
        .other(code: ErrorCode.invalidToken, message: "invalid token: \(reason)")
    }

}
