/// Splits a rule expression into tokens. A `/` starts a regular expression where an operand is
/// expected (after `(`, `,`, an operator, or at the start) and divides elsewhere.
struct RuleLexer {
    private let characters: [Character]
    private var position = 0
    private var tokens: [RuleToken] = []

    init(_ source: String) {
        characters = Array(source)
    }

    /// The tokens of `source`, ending with `.end`.
    /// - Throws: ``RuleSyntaxError`` for a character that cannot start a token, an unterminated
    ///   string or regular expression, `=` alone (no assignment), `;` or `**`.
    /// - Complexity: O(n).
    static func tokens(of source: String) throws(RuleSyntaxError) -> [RuleToken] {
        var lexer = RuleLexer(source)
        try lexer.run()
        return lexer.tokens
    }

    private var expectsOperand: Bool {
        guard let last = tokens.last else { return true }
        switch last.kind {
        case .symbol(let symbol): return symbol != ")" && symbol != "]"
        default: return false
        }
    }

    private mutating func run() throws(RuleSyntaxError) {
        while position < characters.count {
            let character = characters[position]
            let start = position
            if character.isWhitespace {
                position += 1
                continue
            }
            if character.isNumber || (character == "." && position + 1 < characters.count && characters[position + 1].isNumber) {
                tokens.append(RuleToken(kind: .number(try number()), start: start, end: position))
            } else if character == "'" || character == "\"" {
                tokens.append(RuleToken(kind: .string(try string()), start: start, end: position))
            } else if character == "$" || character.isLetter || character == "_" {
                position += 1
                while position < characters.count, characters[position].isLetter || characters[position].isNumber || characters[position] == "_" {
                    position += 1
                }
                let word = String(characters[start..<position])
                if character == "$" {
                    guard word.count > 1 else { throw RuleSyntaxError("a $ must start a wildcard's name", at: start) }
                    tokens.append(RuleToken(kind: .capture(word), start: start, end: position))
                } else {
                    tokens.append(RuleToken(kind: .identifier(word), start: start, end: position))
                }
            } else if character == "/" && expectsOperand {
                tokens.append(try regex())
            } else {
                tokens.append(try symbol())
            }
        }
        tokens.append(RuleToken(kind: .end, start: characters.count, end: characters.count))
    }

    private mutating func number() throws(RuleSyntaxError) -> Double {
        let start = position
        while position < characters.count, characters[position].isNumber || characters[position] == "." { position += 1 }
        if position < characters.count, characters[position] == "e" || characters[position] == "E" {
            position += 1
            if position < characters.count, characters[position] == "+" || characters[position] == "-" { position += 1 }
            while position < characters.count, characters[position].isNumber { position += 1 }
        }
        guard let value = Double(String(characters[start..<position])) else {
            throw RuleSyntaxError("\(String(characters[start..<position])) is not a number", at: start)
        }
        return value
    }

    private mutating func string() throws(RuleSyntaxError) -> String {
        let (text, end) = try StringLiteral.read(characters, at: position, allowsNewlines: true)
        position = end
        return text
    }

    private mutating func regex() throws(RuleSyntaxError) -> RuleToken {
        let start = position
        position += 1
        var pattern = ""
        var inClass = false
        while position < characters.count {
            let character = characters[position]
            position += 1
            if character == "\\" {
                guard position < characters.count else { break }
                pattern.append(character)
                pattern.append(characters[position])
                position += 1
                continue
            }
            if character == "[" { inClass = true }
            if character == "]" { inClass = false }
            if character == "/" && !inClass {
                var flags = ""
                while position < characters.count, characters[position].isLetter {
                    flags.append(characters[position])
                    position += 1
                }
                return RuleToken(kind: .regex(pattern: pattern, flags: flags), start: start, end: position)
            }
            pattern.append(character)
        }
        throw RuleSyntaxError("the regular expression is not closed", at: start)
    }

    private static let symbols = ["===", "!==", "==", "!=", "<=", ">=", "&&", "||", "(", ")", "[", "]", ".", ",", "?", ":", "!", "-", "+", "*", "/", "%", "<", ">"]

    private mutating func symbol() throws(RuleSyntaxError) -> RuleToken {
        let start = position
        let rest = characters[position...]
        if rest.starts(with: "**") { throw RuleSyntaxError("** is not an operator of rules", at: start) }
        for symbol in Self.symbols where rest.starts(with: symbol) {
            position += symbol.count
            return RuleToken(kind: .symbol(symbol), start: start, end: position)
        }
        switch characters[position] {
        case "=": throw RuleSyntaxError("rules cannot assign: use == or === to compare", at: start)
        case ";": throw RuleSyntaxError("a rule is one expression: no ;", at: start)
        case "&", "|": throw RuleSyntaxError("use && or ||", at: start)
        default: throw RuleSyntaxError("unexpected character \"\(characters[position])\"", at: start)
        }
    }
}
