import EmberCore

/// What a Lua write returns: the write's answer once the server gave it.
final class LuaWriteHandle {
    /// What the write did ("set", "update", ...).
    let verb: StaticString
    /// Where it wrote.
    let path: Path
    /// The server's answer once it came: `nil` inside for success.
    var answer: DatabaseError??
    /// The completion function the script passed (a registry reference), called with the
    /// answer; `nil` when it passed none.
    private let callback: Int32?
    /// The runtime that calls ``callback``.
    private weak var runtime: LuaRuntime?

    /// A handle for the write of `verb` at `path`, calling `callback` of `runtime` with the
    /// answer.
    init(_ verb: StaticString, at path: Path, callback: Int32?, of runtime: LuaRuntime) {
        self.verb = verb
        self.path = path
        self.callback = callback
        self.runtime = runtime
    }

    /// What was written where ("set at /users/alice"), for messages: made when a message needs
    /// it, not for every write (a loop of a million writes made a million of them, a fortieth
    /// of a Lua `set`'s cost, callgrind).
    var label: String { "\(verb) at \(path)" }

    /// The client's completion of the write: keeps the answer and queues the script's
    /// completion function. Passed as `handle.answered`, it captures the handle alone: no
    /// closure context is allocated for each write.
    func answered(_ error: DatabaseError?) {
        answer = .some(error)
        guard let callback, let runtime else { return }
        runtime.enqueue(LuaCallback(
            function: callback, releasesFunction: true, arguments: [.error(error)],
            context: "completion of the \(label)", listener: nil))
    }
}
