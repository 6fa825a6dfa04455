import EmberCore

/// What a script's write returns: it learns the server's answer (`h:wait()`).
final class LuaWriteHandle {
    /// What the write did ("set", "update", ...).
    let verb: StaticString
    /// Where it wrote.
    let path: Path
    /// The server's answer once it came: `nil` inside for success.
    var answer: DatabaseError??

    /// A handle for the write of `verb` at `path`.
    init(_ verb: StaticString, at path: Path) {
        self.verb = verb
        self.path = path
    }

    /// What was written where ("set at /users/alice"), for messages: made when a message needs
    /// it, not for every write (a loop of a million writes made a million of them, a fortieth
    /// of a Lua `set`'s cost, callgrind).
    var label: String { "\(verb) at \(path)" }
}
