import EmberCore
import EmberWire

/// Signing a client in and out (Firebase Auth's role, for the database's side of it).
extension Database {
    /// Who the client is signed in as, and whether its writes can go.
    public var authState: AuthState { repo.authState }

    /// Whether the client holds its writes until it is given a new token (the last one expired,
    /// or the server refused it). Reads go on meanwhile, as a user not signed in.
    public var writesHeld: Bool { repo.writesHeld }

    /// Signs in with `token`: the server checks everything the client does from now on as its
    /// user. With a store, the token is kept: the client is signed in again after a restart.
    /// Writes held for a new token go once the server takes it.
    public func signIn(_ token: AuthToken) {
        repo.signIn(token)
        repo.deliverLocalEvents()
    }

    /// Signs in as the user `claims` describe (`{uid: "alice", email: "a@x", admin: true}`),
    /// with an unsigned token made now that holds for `lifetime` milliseconds (an hour by
    /// default, as Firebase ID tokens), as the emulator's clients do.
    /// - Returns: the token.
    /// - Throws: `invalid_argument` when `claims` name no user.
    @discardableResult
    public func signIn(claims: JSONValue, lifetime: Int64 = AuthToken.defaultLifetime) throws(DatabaseError) -> AuthToken {
        let token = try AuthToken.unsigned(claims: claims, issuedAt: repo.environment.clock.now(), lifetime: lifetime)
        signIn(token)
        return token
    }

    /// Signs out: the server sees the client as not signed in (`auth == null`); writes held
    /// for a new token go, for the rules to judge.
    public func signOut() {
        repo.signOut()
        repo.deliverLocalEvents()
    }
}
