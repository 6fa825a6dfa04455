import EmberCore

extension StoreError {
    /// The failure as the client API reports it: the same code and message.
    public var databaseError: DatabaseError {
        .other(code: code, message: message)
    }
}
