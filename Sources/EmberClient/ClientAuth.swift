import EmberCore
import EmberWire

/// The client's token, and whether the server stopped taking it. One owner, in ``Repo``.
struct ClientAuth {
    /// The token the client signs in with, if any.
    private(set) var token: AuthToken? { didSet { holdsFrom = Self.holdsFrom(token, problem) } }
    /// Why the server no longer takes ``token``: it refused it, or revoked it as expired.
    private var problem: DatabaseError? { didSet { holdsFrom = Self.holdsFrom(token, problem) } }
    /// From when writes wait (milliseconds): at once when the server refused the token, from
    /// its expiry, or never (signed out, or a token that never expires). Kept, so that
    /// ``holdsWrites(at:)``, asked on every write, reads no token.
    private var holdsFrom: Int64 = .max

    /// Signs in with `token` (any problem with the last one is forgotten).
    mutating func signIn(_ token: AuthToken) {
        self.token = token
        problem = nil
    }

    mutating func signOut() {
        token = nil
        problem = nil
    }

    /// The server refused `token` (or revoked it): writes are held until a new one.
    mutating func refused(_ token: AuthToken?, because error: DatabaseError) {
        guard let token, token == self.token else { return }
        problem = error
    }

    /// The server took `token`: a revocation it sent before (of the token this one replaced,
    /// which the server saw expire) no longer counts.
    mutating func accepted(_ token: AuthToken) {
        guard token == self.token else { return }
        problem = nil
    }

    /// Whether writes wait for a new token at `now`: as ``state(at:)``'s
    /// ``AuthState/holdsWrites``, without making the state (every write asks).
    /// - Complexity: O(1).
    func holdsWrites(at now: Int64) -> Bool { now >= holdsFrom }

    private static func holdsFrom(_ token: AuthToken?, _ problem: DatabaseError?) -> Int64 {
        guard let token else { return .max }
        return problem != nil ? .min : token.expiry ?? .max
    }

    /// The state at `now` (milliseconds, the client's clock).
    func state(at now: Int64) -> AuthState {
        guard let token else { return .signedOut }
        if let problem {
            return problem.code == ErrorCode.expiredToken ? .expired(token) : .refused(token, problem)
        }
        return token.isExpired(at: now) ? .expired(token) : .signedIn(token)
    }
}
