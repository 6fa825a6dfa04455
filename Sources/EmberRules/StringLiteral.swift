import EmberCore

/// A quoted string in rules source, with JSON's escapes (`\n \t \r \b \f \uXXXX`, a surrogate
/// pair for a character beyond U+FFFF, read by ``StringEscape``; and `\` before any other
/// character for itself): the `'…'`/`"…"` of rule expressions and the `"…"` of a rules
/// document share this one reader.
enum StringLiteral {
    /// Reads the string whose opening quote is at `start`.
    /// - Parameter allowsNewlines: whether a raw line break may stand inside the string.
    /// - Returns: its text, and the index just past its closing quote.
    /// - Throws: ``RuleSyntaxError`` with the index (into `characters`) of the problem.
    /// - Complexity: O(length of the string).
    static func read(_ characters: [Character], at start: Int, allowsNewlines: Bool) throws(RuleSyntaxError) -> (text: String, end: Int) {
        let quote = characters[start]
        var position = start + 1
        var text = ""
        while position < characters.count {
            let character = characters[position]
            position += 1
            if character == quote { return (text, position) }
            if character == "\n" && !allowsNewlines { throw RuleSyntaxError("the string is not closed on its line", at: start) }
            guard character == "\\" else {
                text.append(character)
                continue
            }
            guard position < characters.count else { break }
            let escaped = characters[position]
            position += 1
            if let control = StringEscape.control(escaped) {
                text.append(control)
            } else if escaped == "u" {
                switch StringEscape.unicode(in: characters, at: position - 2) {
                case .scalar(let scalar, let length):
                    text.unicodeScalars.append(scalar)
                    position += length - 2
                case .truncated, .notHex:
                    throw RuleSyntaxError("a \\u escape needs four hexadecimal digits", at: position - 2)
                case .loneSurrogate:
                    throw RuleSyntaxError("a \\u escape is half of a surrogate pair without the other half", at: position - 2)
                }
            } else {
                text.append(escaped)
            }
        }
        throw RuleSyntaxError("the string is not closed", at: start)
    }
}
