/// How the lexer cuts the next word: the query language is context-dependent, so the parser says
/// what it expects.
enum LexMode: Sendable {
    /// Commands, paths, keywords, names: a bare word runs to the next white space (or `#`), so a
    /// path may contain any character; relaxed-JSON punctuation is a token only at a word's start.
    case word
    /// Relaxed JSON: a bare word (an unquoted key, `true`, a number) also ends at punctuation
    /// (`{` `}` `[` `]` `(` `)` `,` `:`) and at a quote.
    case value
    /// File names and script arguments: a bare word runs to the next white space (or `#`), even
    /// when it starts with punctuation.
    case raw
}
