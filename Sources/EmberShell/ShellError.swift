import EmberCore
import EmberLua
import EmberQL

/// Why a command failed: what the shell prints as `error: ...` (or as a JSON error on stderr)
/// and why a script stops with exit status 1.
public enum ShellError: Error, Sendable {
    /// The input does not compile, or names something invalid: printed with a caret.
    case syntax(EmberQLError)
    /// The database refused or failed (a rejected write, an invalid value, a storage error);
    /// `position` is the word of the input that caused it, when one did.
    case database(DatabaseError, at: SourcePosition?)
    /// A Lua chunk, script or function failed.
    case lua(LuaError)
    /// The command cannot run as asked (an unknown watch id, a file that cannot be read).
    case command(code: String, message: String, at: SourcePosition?)
    /// Ctrl-C stopped the command.
    case interrupted(String)

    /// The machine-readable code (one of ``ErrorCode``): the database's (`permission_denied`),
    /// `syntax_error`, the Lua error's (`lua_error`, `interrupted`, or the code of an Ember error
    /// a script did not catch, such as `invalid_path`), or the command's own.
    public var code: String {
        switch self {
        case .syntax(let error): error.code
        case .database(let error, _): error.code
        case .lua(let error): error.code
        case .command(let code, _, _): code
        case .interrupted: ErrorCode.interrupted
        }
    }

    /// The message, without position.
    public var message: String {
        switch self {
        case .syntax(let error): error.message
        case .database(let error, _): error.message
        case .lua(let error): error.message
        case .command(_, let message, _): message
        case .interrupted(let message): message
        }
    }

    /// The database path the error is about, when there is one.
    public var path: Path? {
        if case .database(let error, _) = self { return error.path }
        return nil
    }

    /// Where in the input it happened, when the input caused it.
    public var position: SourcePosition? {
        switch self {
        case .syntax(let error): error.position
        case .database(_, let position), .command(_, _, let position): position
        case .lua, .interrupted: nil
        }
    }

    /// A command error.
    static func command(_ code: String, _ message: String, at position: SourcePosition? = nil) -> ShellError {
        .command(code: code, message: message, at: position)
    }
}
