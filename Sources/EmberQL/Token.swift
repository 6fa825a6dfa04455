/// A word of the shell's query language, as the lexer cuts a command line.
///
/// The lexer keeps what the parser needs to decide, and no more: keywords stay words (they are
/// case-insensitive and also valid unquoted keys), numbers keep their text (so `1` and `1.0`
/// and big integers are told apart later), and relaxed-JSON punctuation gets its own cases.
/// `#` starts a comment, which produces no token. Where a bare word ends depends on what the
/// parser expects: a path or a keyword runs to the next white space, a word inside a value also
/// ends at punctuation and quotes.
public enum Token: Sendable, Hashable {
    /// A bare word: a command (`set`), a keyword (`orderBy`, `limitToFirst`), `now`, `true`,
    /// an unquoted object key.
    case word(String)
    /// A path: starts with `/` or `.` (`/users/alice`, `..`, `./scores`).
    case path(String)
    /// A quoted string (single or double quotes), unescaped.
    case string(String)
    /// A number as written (`-3`, `2.5e3`).
    case number(String)
    /// `{`
    case leftBrace
    /// `}`
    case rightBrace
    /// `[`
    case leftBracket
    /// `]`
    case rightBracket
    /// `(`
    case leftParenthesis
    /// `)`
    case rightParenthesis
    /// `,`
    case comma
    /// `:`
    case colon
    /// The end of the command.
    case end

    /// How the token reads in a message: `expected a path, found '{'`.
    public var shown: String {
        switch self {
        case .word(let text), .path(let text), .number(let text): "'\(text)'"
        case .string(let text): "string \"\(text)\""
        case .leftBrace: "'{'"
        case .rightBrace: "'}'"
        case .leftBracket: "'['"
        case .rightBracket: "']'"
        case .leftParenthesis: "'('"
        case .rightParenthesis: "')'"
        case .comma: "','"
        case .colon: "':'"
        case .end: "the end of the line"
        }
    }
}
