import EmberCore
import EmberWire

/// Who a connection acts as, for the rules.
public enum ConnectionAuth: Sendable, Hashable {
    /// Not signed in: `auth` is null.
    case none
    /// Signed in with a token: `auth` is its uid, provider and claims.
    case user(AuthToken)
    /// An administrator (the emulator's `owner`): the rules do not apply.
    case admin
    /// An administrator acting as a user for the rules: `auth` is this object (`gauth`'s
    /// `authvar`, REST's `auth_variable_override`).
    case variable(JSONValue)

    /// The rules' `auth` variable.
    public var variable: JSONValue? {
        switch self {
        case .none, .admin: nil
        case .user(let token): token.auth
        case .variable(let auth): auth
        }
    }
}
