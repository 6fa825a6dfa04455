import EmberCore
import EmberWire

/// Signing in and out, and holding writes while the token does not hold.
extension Repo {
    /// Where the client's sign-in stands now.
    var authState: AuthState { auth.state(at: environment.clock.now()) }

    /// Whether writes wait for a new token (it expired, or the server refused it).
    var writesHeld: Bool { auth.holdsWrites(at: environment.clock.now()) }

    /// Whether writes go to the server now: connected, and not held for a new token.
    var sendsWrites: Bool { connectionState == .connected && !writesHeld }

    /// Signs in with `token` (kept in the store, so that a restart signs in again): sent at
    /// once when connected, and on every connection from now on. Writes held for a new token
    /// go when the server takes it.
    func signIn(_ token: AuthToken) {
        auth.signIn(token)
        persistence.saveAuthToken(token.text)
        sendAuth()
    }

    /// Signs out: the server sees the client as not signed in, and held writes go (as a user
    /// not signed in: the rules decide).
    func signOut() {
        auth.signOut()
        persistence.saveAuthToken(nil)
        guard connectionState == .connected else { return }
        send(.unauth(requestID: requests.newID()), as: .unauth)
        sendQueuedWrites()
    }

    /// Sends the token on a new connection (first of all, so that everything after it is
    /// checked as its user), or when it changes. An expired token is not sent: the connection
    /// stays signed out and writes wait.
    func sendAuth() {
        guard connectionState == .connected, let token = auth.token, !writesHeld else { return }
        send(.auth(requestID: requests.newID(), token: token.text), as: .auth(token))
    }

    /// The server answered a token: writes held for it go; a refusal holds them.
    func authAnswered(_ token: AuthToken, status: AckStatus) {
        switch status {
        case .ok:
            guard token == auth.token else { return }
            auth.accepted(token)
            sendQueuedWrites()
        case .failed(let error):
            auth.refused(token, because: error)
        }
    }

    /// The server stopped taking the token (it expired): writes wait for a new one.
    func authRevoked(_ error: DatabaseError) {
        auth.refused(auth.token, because: error)
    }
}
