import EmberCore
import EmberWire

/// Whom a ``ServerClient`` signs in as before its requests.
public enum ServerSignIn: Sendable, Hashable {
    /// A user, with the text of their token (checked by the server: `invalid_token`,
    /// `expired_token`).
    case user(token: String)
    /// The administrator, acting as `override` says for the rules. The credential is the
    /// one the server takes from its network edge (``Server/acceptsAdminCredential``).
    case admin(credential: String, override: AuthOverride)
}
