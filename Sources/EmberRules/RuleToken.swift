/// One token of a rule expression and where it starts.
struct RuleToken: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case number(Double)
        case string(String)
        case identifier(String)
        /// `$name`.
        case capture(String)
        /// `/pattern/flags`.
        case regex(pattern: String, flags: String)
        /// An operator or punctuation: `( ) [ ] . , ? : ! - + * / % < <= > >= == != === !== && ||`.
        case symbol(String)
        case end
    }

    let kind: Kind
    /// The offset of its first character.
    let start: Int
    /// The offset just past its last character.
    let end: Int
}
