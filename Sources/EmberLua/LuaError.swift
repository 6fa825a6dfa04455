import EmberCore

/// Why running Lua code failed: the kind of failure, its stable code, Lua's message and, for
/// runtime errors, the traceback at the point of the error.
///
/// ```swift
/// do { _ = try lua.run(chunk: "error('boom')", name: "=repl") }
/// catch { print(error.message) }   // "repl:1: boom"
/// ```
public struct LuaError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Kind: Sendable, Hashable {
        /// The chunk did not compile.
        case syntax
        /// The code raised an error (including errors thrown by Swift functions).
        case runtime
        /// The run was interrupted (`LuaState.requestInterrupt()` or Ctrl-C).
        case interrupted
        /// The run executed more VM instructions than its limit allows.
        case instructionLimit
        /// An allocation failed, usually because of the memory limit.
        case memory
        /// The message handler itself failed while handling an error.
        case messageHandler
        /// The state could not be created or set up.
        case setup
        /// A value could not be converted between JSON and Lua (a Lua value that is not JSON, a
        /// cycle, too deep a nesting), or an expression meant to give a function gave something
        /// else. The message names the path of the bad field.
        case conversion
        /// A ``LuaFunctionReference`` was used after its release, or with another state.
        case invalidReference
    }

    /// What kind of failure this is.
    public let kind: Kind

    /// Lua's message, with its `chunk:line:` prefix when Lua added one.
    public let message: String

    /// The stack traceback ("stack traceback:\n\t..."), when the error was raised by running code.
    public let traceback: String?

    /// The stable code (one of ``ErrorCode``): the code of the Ember error object the code raised
    /// and did not catch (`invalid_path` for `db:ref("a.b")`), else the kind's: `interrupted`,
    /// `instruction_limit`, `memory_limit`, or `lua_error` for everything else (an `error("x")`
    /// of the script's own, a syntax error).
    public let code: String

    /// Creates an error; `code` defaults to the kind's (see ``code``).
    public init(_ kind: Kind, message: String, traceback: String? = nil, code: String? = nil) {
        self.kind = kind
        self.message = message
        self.traceback = traceback
        self.code = code ?? Self.code(of: kind)
    }

    /// The code of an error of `kind` that carries no code of its own.
    public static func code(of kind: Kind) -> String {
        switch kind {
        case .interrupted: ErrorCode.interrupted
        case .instructionLimit: ErrorCode.instructionLimit
        case .memory: ErrorCode.memoryLimit
        case .syntax, .runtime, .messageHandler, .setup, .conversion, .invalidReference: ErrorCode.luaError
        }
    }

    /// The message.
    public var description: String { message }
}
