import EmberCore
import EmberNetworkShared
import EmberServer
import EmberWire

/// Who a REST request acts as, from its `auth=`, `access_token=` or `Authorization: Bearer`
/// and `auth_variable_override` (`../shared/reference/firebase-network.md` §1.9, §3.3).
enum RESTIdentity: Sendable, Equatable {
    /// No credential: `auth` is null.
    case anonymous
    /// A Firebase ID token (the emulator's unsigned tokens included): the rules see its user.
    case user(AuthToken)
    /// An administrator (`owner`, as Firebase's Admin SDKs send to an emulator), to whom the
    /// rules do not apply, or who acts as the user of an override.
    case admin(AuthOverride)

    /// Whether the request comes from the administrator.
    var isAdministrator: Bool {
        if case .admin = self { return true }
        return false
    }

    /// Reads the credential of a request, checking a token's signature with `verifier` when a
    /// project is configured (`ember serve --project`).
    /// - Throws: 401 "Could not parse auth token." for a token that is not one, has expired, or
    ///   does not verify; 400 for an `auth_variable_override` that is not JSON, 403 for one
    ///   given by a non-admin.
    static func of(
        query: QueryString, authorization: String?, verifier: TokenVerifier?, admin: AdminCredential = .owner, now: Int64
    ) async throws(NetworkError) -> RESTIdentity {
        var identity: RESTIdentity
        switch credential(query: query, authorization: authorization) {
        case nil, ""?:
            identity = .anonymous
        case let text? where admin.accepts(text):
            identity = .admin(.none)
        case let text?:
            identity = .user(try await token(text, verifier: verifier, now: now))
        }
        if let override = query["auth_variable_override"] {
            guard case .admin = identity else {
                throw NetworkError(.forbidden, "auth_variable_override needs an administrator's credential")
            }
            switch try? JSONParser.parse(override) {
            case .null?: identity = .admin(.unauthenticated)
            case .object(let members)?: identity = .admin(.variable(.object(members)))
            default: throw NetworkError(.badRequest, "auth_variable_override must be a JSON object or null")
            }
        }
        return identity
    }

    /// The user's token in `text`: verified when a project is configured, else read as the
    /// emulator reads it (unsigned tokens taken).
    private static func token(_ text: String, verifier: TokenVerifier?, now: Int64) async throws(NetworkError) -> AuthToken {
        if let verifier {
            guard case .success(let token) = await verifier.verify(text) else {
                throw NetworkError(.unauthorized, "Could not parse auth token.")
            }
            return token
        }
        guard let token = try? AuthToken(parsing: text), !token.isExpired(at: now) else {
            throw NetworkError(.unauthorized, "Could not parse auth token.")
        }
        return token
    }

    /// The credential a request presents, if any.
    private static func credential(query: QueryString, authorization: String?) -> String? {
        if let credential = query["auth"] ?? query["access_token"] { return credential }
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        return parts.count == 2 && parts[0].lowercased() == "bearer" ? String(parts[1]) : nil
    }

    /// Whether the rules do not apply.
    var isAdmin: Bool { self == .admin(.none) }

    /// Who the server's rules see, or `nil` for a token expired at `now` (the sign-in itself
    /// is refused then).
    func connectionAuth(at now: Int64) -> ConnectionAuth? {
        switch self {
        case .anonymous: ConnectionAuth.none
        case .user(let token): token.isExpired(at: now) ? nil : .user(token)
        case .admin(.none): .admin
        case .admin(.variable(let auth)): .variable(auth)
        case .admin(.unauthenticated): ConnectionAuth.none
        }
    }

    /// How a connection signs in as this identity, if it does.
    var signIn: ServerSignIn? {
        switch self {
        case .anonymous: nil
        case .user(let token): .user(token: token.text)
        case .admin(let override): .admin(credential: AdminCredential.ownerWord, override: override)
        }
    }
}
