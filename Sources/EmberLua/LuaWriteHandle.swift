import EmberCore

/// What a script's write returns: it learns the server's answer (`h:wait()`).
final class LuaWriteHandle {
    /// What was written where ("set at /users/alice"), for messages.
    let label: String
    /// The server's answer once it came: `nil` inside for success.
    var answer: DatabaseError??

    /// A handle for the write `label`.
    init(label: String) {
        self.label = label
    }
}
