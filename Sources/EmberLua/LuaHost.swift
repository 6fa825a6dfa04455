import EmberClient
import EmberCore

/// What a ``LuaRuntime`` asks of the program embedding it (the shell): the current client,
/// running query-language commands, plugin commands, and reporting errors no script can catch.
public protocol LuaHost: AnyObject {
    /// The client new scripts see as `db` (the shell's current client).
    var currentDatabase: Database { get }

    /// Runs one query-language command for `ember.exec` and returns what it printed, as JSON
    /// (`--json` output; several documents make an array, none `null`).
    /// - Throws: ``LuaHostError`` with the command's error message.
    func execute(command: String) throws(LuaHostError) -> JSONValue

    /// Accepts a command a script added with `ember.command{...}`.
    /// - Throws: ``LuaHostError`` when the name is taken by a built-in command or is not a word.
    func register(_ command: LuaCommand) throws(LuaHostError)

    /// Reports an error that happened where no script can catch it: in a listener, a completion
    /// callback or `onComplete`. `context` says where ("value listener on /chat").
    func report(_ error: LuaError, context: String)

    /// `ember.exit(status)`: the run ends with `status` once the script has stopped.
    func requestExit(status: Int32)
}

extension LuaHost {
    /// A host without a run to end ignores it (the script still stops).
    public func requestExit(status: Int32) {}
}

/// A failure the host reports back to a script (raised there as a Lua error object).
public struct LuaHostError: Error, Sendable {
    /// The stable code (one of ``ErrorCode``): the failed command's own for `ember.exec`.
    public let code: String
    /// The message.
    public let message: String

    /// An error with `code` and `message`.
    public init(code: String, _ message: String) {
        self.code = code
        self.message = message
    }
}
