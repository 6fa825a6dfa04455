import EmberCore

/// The input cannot be compiled, or names something invalid: what is wrong and where.
///
/// ``rendered(source:)`` shows the line with a caret under the offending word:
///
/// ```
/// error: 'limitToFirst' needs a positive integer, found '0'
///   get /scores limitToFirst 0
///                            ^
/// ```
public struct EmberQLError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// Where: the start of the offending word.
    public var position: SourcePosition
    /// How many characters the caret underlines (at least 1).
    public var length: Int
    /// The stable code: `syntax_error` for input that does not parse, `invalid_path` for a path
    /// that parses but names an invalid key or is too deep (issue 37: `--json` said
    /// `syntax_error` for `set /a.b 1`, where docs/ERRORS.md says `invalid_path`).
    public var code: String

    /// Creates an error at `position`, underlining `length` characters.
    public init(_ message: String, at position: SourcePosition, length: Int = 1, code: String = ErrorCode.syntaxError) {
        self.message = message
        self.position = position
        self.length = max(1, length)
        self.code = code
    }

    /// `message at line:column`.
    public var description: String { "\(message) at \(position)" }

    /// The message, then the offending line of `source` indented by two spaces, then carets under
    /// the offending word: three lines, no trailing newline.
    public func rendered(source: String) -> String {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        let index = min(max(position.line - 1, 0), max(lines.count - 1, 0))
        let line = lines.isEmpty ? "" : String(lines[index])
        let indent = String(repeating: " ", count: max(position.column - 1, 0))
        let carets = String(repeating: "^", count: length)
        return "error: \(message)\n  \(line)\n  \(indent)\(carets)"
    }
}
