/// A quoted string in rules source, with JSON's escapes (`\n \t \r \b \f \uXXXX`, and `\` before
/// any other character for itself): the `'…'`/`"…"` of rule expressions and the `"…"` of a rules
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
            switch escaped {
            case "n": text.append("\n")
            case "t": text.append("\t")
            case "r": text.append("\r")
            case "b": text.append("\u{8}")
            case "f": text.append("\u{C}")
            case "u":
                guard position + 4 <= characters.count, let code = UInt32(String(characters[position..<position + 4]), radix: 16),
                    let scalar = Unicode.Scalar(code)
                else { throw RuleSyntaxError("a \\u escape needs four hexadecimal digits", at: position - 2) }
                text.unicodeScalars.append(scalar)
                position += 4
            default: text.append(escaped)
            }
        }
        throw RuleSyntaxError("the string is not closed", at: start)
    }
}
