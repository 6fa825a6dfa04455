import GRDB

/// The client's auth token, kept across restarts as Firebase's clients keep the user's session:
/// a client that restarts is signed in as before (and, if the token expired meanwhile, holds its
/// writes until it is given a new one).
extension ClientStore {
    /// The token saved last, or `nil` when the client is signed out.
    /// - Throws: ``StoreError`` when the file cannot be read.
    public func loadAuthToken() throws(StoreError) -> String? {
        try read("read the auth token") { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'auth_token'")
        }
    }

    /// Saves the token (`nil`: signed out), durably, at once.
    /// - Throws: ``StoreError`` when the write fails; the saved token is then as it was.
    public func saveAuthToken(_ token: String?) throws(StoreError) {
        try queue.save(token, forKey: "auth_token", in: "meta", "the auth token", of: "the client's store", at: location)
    }
}
