import Foundation

/// A regular expression literal of the rules language (`/pattern/flags`): checked against the
/// subset Firebase accepts, then compiled.
///
/// Accepted, as Firebase's regular expression reference lists: `\s \w \d \S \W \D`, escaped
/// punctuation, `.`, `* + ?`, `{n}`, `{n,}`, `{n,m}`, groups, `|` between non-empty
/// alternatives, classes `[...]` with ranges and `^`; `^` only as the first character and `$` only
/// as the last; the flag `i` only. Matching searches the string (anchored only by `^` and `$`).
public struct RuleRegex: Sendable, Hashable {
    public let pattern: String
    public let flags: String
    private let compiled: CompiledPattern

    /// Checks and compiles `/pattern/flags`.
    /// - Throws: ``RuleSyntaxError`` naming the offending character (offset from the `/`).
    public init(pattern: String, flags: String) throws(RuleSyntaxError) {
        if let bad = flags.first(where: { $0 != "i" }) {
            throw RuleSyntaxError("the regular expression flag \"\(bad)\" is not supported (only i)", at: pattern.count + 2)
        }
        var checker = Checker(Array(pattern))
        try checker.check()
        self.pattern = pattern
        self.flags = flags
        // ICU wants a literal } escaped, JavaScript (and Firebase) does not.
        var translated = ""
        for (offset, character) in pattern.enumerated() {
            if checker.literalBraces.contains(offset) { translated.append("\\") }
            translated.append(character)
        }
        do {
            compiled = CompiledPattern(try NSRegularExpression(pattern: translated, options: flags.contains("i") ? [.caseInsensitive] : []))
        } catch {
            throw RuleSyntaxError("the regular expression /\(pattern)/ does not compile", at: 0)
        }
    }

    /// Whether `text` contains a match.
    /// - Complexity: that of the regular expression engine (ICU), linear for these patterns.
    public func matches(_ text: String) -> Bool {
        compiled.expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    public static func == (lhs: RuleRegex, rhs: RuleRegex) -> Bool { lhs.pattern == rhs.pattern && lhs.flags == rhs.flags }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(pattern)
        hasher.combine(flags)
    }

    /// The compiled expression (immutable, safe to share between threads).
    private final class CompiledPattern: @unchecked Sendable {
        let expression: NSRegularExpression
        init(_ expression: NSRegularExpression) { self.expression = expression }
    }

    /// A recursive-descent check of the accepted subset.
    private struct Checker {
        let characters: [Character]
        var position = 0
        /// Where a `}` stands for itself (not closing a repetition).
        var literalBraces: Set<Int> = []

        init(_ characters: [Character]) { self.characters = characters }

        /// Offsets are from the opening `/`, hence +1.
        func error(_ reason: String) -> RuleSyntaxError { RuleSyntaxError(reason, at: position + 1) }

        mutating func check() throws(RuleSyntaxError) {
            if characters.first == "^" { position = 1 }
            try alternation(depth: 0)
            if position < characters.count, characters[position] == "$", position == characters.count - 1 {
                position += 1
            }
            guard position == characters.count else {
                throw error(characters[position] == "$" || characters[position] == "^"
                    ? "\(characters[position]) may only start (^) or end ($) a regular expression"
                    : "unexpected \"\(characters[position])\" in the regular expression")
            }
        }

        mutating func alternation(depth: Int) throws(RuleSyntaxError) {
            try sequence(depth: depth)
            while position < characters.count, characters[position] == "|" {
                position += 1
                try sequence(depth: depth)
            }
        }

        mutating func sequence(depth: Int) throws(RuleSyntaxError) {
            var atoms = 0
            while position < characters.count {
                let character = characters[position]
                if character == "|" || character == ")" { break }
                if character == "$" && position == characters.count - 1 && depth == 0 { break }
                try atom(depth: depth)
                try quantifier()
                atoms += 1
            }
            if atoms == 0 { throw error("an alternative of the regular expression is empty") }
        }

        mutating func atom(depth: Int) throws(RuleSyntaxError) {
            let character = characters[position]
            switch character {
            case "(":
                position += 1
                try alternation(depth: depth + 1)
                guard position < characters.count, characters[position] == ")" else { throw error("a group is not closed") }
                position += 1
            case "[":
                try characterClass()
            case "\\":
                try escape()
            case "^", "$":
                throw error("\(character) may only start (^) or end ($) a regular expression")
            case "*", "+", "?":
                throw error("\(character) must follow something to repeat")
            case "{":
                throw error("{ must follow something to repeat (\\{ for the character)")
            default:
                if character == "}" { literalBraces.insert(position) }
                position += 1
            }
        }

        mutating func escape() throws(RuleSyntaxError) {
            position += 1
            guard position < characters.count else { throw error("the regular expression ends with \\") }
            let escaped = characters[position]
            if escaped.isLetter || escaped.isNumber {
                guard "swdSWDntr".contains(escaped) else { throw error("\\\(escaped) is not supported") }
            }
            position += 1
        }

        mutating func characterClass() throws(RuleSyntaxError) {
            position += 1
            if position < characters.count, characters[position] == "^" { position += 1 }
            var members = 0
            while position < characters.count, characters[position] != "]" || members == 0 {
                if characters[position] == "\\" { try escape() } else { position += 1 }
                members += 1
            }
            guard position < characters.count else { throw error("a character class is not closed") }
            position += 1
        }

        mutating func quantifier() throws(RuleSyntaxError) {
            guard position < characters.count else { return }
            switch characters[position] {
            case "*", "+", "?":
                position += 1
            case "{":
                let start = position
                position += 1
                var digits = 0
                while position < characters.count, characters[position].isNumber { position += 1; digits += 1 }
                if position < characters.count, characters[position] == "," {
                    position += 1
                    while position < characters.count, characters[position].isNumber { position += 1 }
                }
                guard digits > 0, position < characters.count, characters[position] == "}" else {
                    position = start
                    throw error("a repetition is {n}, {n,} or {n,m}")
                }
                position += 1
            default:
                return
            }
            if position < characters.count, "*+?{".contains(characters[position]) {
                throw error("\(characters[position]) cannot repeat a repetition")
            }
        }
    }
}
