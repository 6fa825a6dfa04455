/// Why the parser stopped early: an error in the input, or (when it was asked what could be typed
/// at the cursor) the completion context it reached.
enum ParseFailure: Error {
    /// The input is wrong. `incomplete` when it only ended too soon (a string, object, array or
    /// parenthesis still open), so the REPL should read another line instead of reporting it.
    case error(EmberQLError, incomplete: Bool)
    /// The cursor was reached where the parser knows what it expects.
    case completion(CompletionContext)

    /// An error at `token`, underlining it.
    static func error(_ message: String, at token: LexedToken) -> ParseFailure {
        .error(EmberQLError(message, at: token.position, length: token.length), incomplete: false)
    }

    /// An error reported because the input ended inside something still open.
    static func incomplete(_ message: String, at token: LexedToken) -> ParseFailure {
        .error(EmberQLError(message, at: token.position, length: 1), incomplete: true)
    }
}

extension ParseFailure {
    /// The error to report; a completion (which only the completer asks for) becomes an error at
    /// the start, which no caller sees.
    var emberQLError: EmberQLError {
        switch self {
        case .error(let error, _): error
        case .completion: EmberQLError("nothing to complete", at: .start)
        }
    }
}
