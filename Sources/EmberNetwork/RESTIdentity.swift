import EmberCore
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

    /// Reads the credential of a request.
    /// - Throws: 401 "Could not parse auth token." for a token that is not one, or one that has
    ///   expired; 400 for an `auth_variable_override` that is not JSON, or given by a non-admin.
    init(query: QueryString, authorization: String?, now: Int64) throws(NetworkError) {
        var credential = query["auth"] ?? query["access_token"]
        if credential == nil, let authorization {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { credential = String(parts[1]) }
        }
        switch credential {
        case nil, ""?:
            self = .anonymous
        case "owner"?:
            self = .admin(.none)
        case let text?:
            guard let token = try? AuthToken(parsing: text), !token.isExpired(at: now) else {
                throw NetworkError(.unauthorized, "Could not parse auth token.")
            }
            self = .user(token)
        }
        if let override = query["auth_variable_override"] {
            guard case .admin = self else {
                throw NetworkError(.forbidden, "auth_variable_override needs an administrator's credential")
            }
            switch try? JSONParser.parse(override) {
            case .null?: self = .admin(.unauthenticated)
            case .object(let members)?: self = .admin(.variable(.object(members)))
            default: throw NetworkError(.badRequest, "auth_variable_override must be a JSON object or null")
            }
        }
    }

    /// Whether the rules do not apply.
    var isAdmin: Bool { self == .admin(.none) }

    /// The request that signs a connection in as this identity (numbered 1), if any.
    var signIn: ClientMessage? {
        switch self {
        case .anonymous: nil
        case .user(let token): .auth(requestID: 1, token: token.text)
        case .admin(let override): .adminAuth(requestID: 1, credential: "owner", override: override)
        }
    }
}
