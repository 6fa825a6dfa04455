/// A ``Token`` with where it was written: its first character, its length, and its range of
/// characters in the input (so the parser can quote the text as typed).
struct LexedToken: Sendable, Hashable {
    /// What was read.
    var token: Token
    /// Where it starts (for ``Token/end``, just after the last thing read).
    var position: SourcePosition
    /// The characters of the input it covers.
    var range: Range<Int>

    /// How many characters a caret under it spans (at least 1).
    var length: Int { max(1, range.count) }

    /// The text of a bare token (word, path or number) or the unquoted text of a string.
    var text: String? {
        switch token {
        case .word(let text), .path(let text), .number(let text), .string(let text): text
        default: nil
        }
    }

    /// The text of a bare token, lowercased, for matching a case-insensitive keyword; `nil` for a
    /// quoted string (a quoted word is never a keyword) and for punctuation.
    var keyword: String? {
        switch token {
        case .word(let text), .path(let text), .number(let text): text.lowercased()
        default: nil
        }
    }

    /// Whether this is the end of the input.
    var isEnd: Bool { token == .end }
}
