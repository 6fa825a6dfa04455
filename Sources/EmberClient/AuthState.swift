import EmberCore
import EmberWire

/// Who a client is signed in as, and whether its writes can go.
///
/// As the seeds and Firebase's SDKs describe: when the token has expired (or the server refused
/// it), the client holds its writes, queued, until it is given a new token; reads go on, as a
/// user who is not signed in.
public enum AuthState: Sendable, Equatable {
    /// Not signed in: the rules see `auth == null`.
    case signedOut
    /// Signed in with a token that holds.
    case signedIn(AuthToken)
    /// Signed in with a token that has expired: writes are held.
    case expired(AuthToken)
    /// The server refused the token: writes are held.
    case refused(AuthToken, DatabaseError)

    /// The token, whatever its state.
    public var token: AuthToken? {
        switch self {
        case .signedOut: nil
        case .signedIn(let token), .expired(let token), .refused(let token, _): token
        }
    }

    /// Whether writes wait for a new token.
    public var holdsWrites: Bool {
        switch self {
        case .signedOut, .signedIn: false
        case .expired, .refused: true
        }
    }

    /// `alice`, `alice (expired)`, `alice (refused)`, or `not signed in`.
    public var description: String {
        switch self {
        case .signedOut: "not signed in"
        case .signedIn(let token): token.uid
        case .expired(let token): "\(token.uid) (token expired)"
        case .refused(let token, _): "\(token.uid) (token refused)"
        }
    }
}
