import EmberCore

/// Cuts the shell's input into ``LexedToken``s, one at a time, in the ``LexMode`` the parser asks
/// for, and keeps the position (line, column, offset) of every character.
///
/// White space (newlines included: an entry may span lines) separates tokens; `#` outside a
/// string starts a comment that runs to the end of the line. Strings take single or double quotes
/// and the JSON escapes plus `\'`; they may span lines.
struct Lexer: Sendable {
    /// The input.
    let characters: [Character]
    /// The position of each character, and of the end of the input (one more than characters).
    private let positions: [SourcePosition]
    /// The next character to read.
    private(set) var index = 0

    /// The characters that are a token of their own in relaxed JSON.
    static let punctuation: Set<Character> = ["{", "}", "[", "]", "(", ")", ",", ":"]

    /// A lexer at the start of `source`.
    init(_ source: String) {
        characters = Array(source)
        var positions: [SourcePosition] = []
        positions.reserveCapacity(characters.count + 1)
        var position = SourcePosition.start
        positions.append(position)
        for character in characters {
            position = position.advanced(past: character)
            positions.append(position)
        }
        self.positions = positions
    }

    /// Whether every character has been read.
    var isAtEnd: Bool { index >= characters.count }

    /// The position of the character at `index` (or of the end of the input).
    func position(at index: Int) -> SourcePosition { positions[min(max(index, 0), characters.count)] }

    /// The input's text over `range`, as written.
    func text(_ range: Range<Int>) -> String { String(characters[range]) }

    /// Skips white space and comments.
    /// - Returns: whether it stopped at the end of the input inside a comment (a cursor there is
    ///   in the comment, not after it).
    @discardableResult
    mutating func skipTrivia() -> Bool {
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace {
                index += 1
            } else if character == "#" {
                while index < characters.count && !characters[index].isNewline { index += 1 }
                if index == characters.count { return true }
            } else {
                break
            }
        }
        return false
    }

    /// Reads the next token. At the end of the input it returns ``Token/end`` (positioned just
    /// after the last thing read) and stays where it was.
    /// - Throws: an unterminated string (marked incomplete) or a bad escape.
    mutating func next(_ mode: LexMode) throws(ParseFailure) -> LexedToken {
        let before = index
        skipTrivia()
        guard index < characters.count else {
            index = before
            return LexedToken(token: .end, position: positions[before], range: before..<before)
        }
        let start = index
        let character = characters[start]
        if character == "\"" || character == "'" {
            return try string(quotedBy: character)
        }
        if mode != .raw, Self.punctuation.contains(character) {
            index += 1
            let token: Token =
                switch character {
                case "{": .leftBrace
                case "}": .rightBrace
                case "[": .leftBracket
                case "]": .rightBracket
                case "(": .leftParenthesis
                case ")": .rightParenthesis
                case ",": .comma
                default: .colon
                }
            return LexedToken(token: token, position: positions[start], range: start..<index)
        }
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace || character == "#" { break }
            if mode == .value, Self.punctuation.contains(character) || character == "\"" || character == "'" { break }
            index += 1
        }
        let text = String(characters[start..<index])
        let token: Token =
            if Self.isNumber(text) {
                .number(text)
            } else if text.hasPrefix("/") || text.hasPrefix(".") {
                .path(text)
            } else {
                .word(text)
            }
        return LexedToken(token: token, position: positions[start], range: start..<index)
    }

    /// The next token, without reading it.
    func peek(_ mode: LexMode) throws(ParseFailure) -> LexedToken {
        var copy = self
        return try copy.next(mode)
    }

    /// Skips white space (not comments) and returns the rest of the input as written, without
    /// trailing white space, and where it starts; `nil` when nothing but white space is left.
    /// For raw Lua, where `#` is the length operator.
    mutating func verbatimRest() -> Word? {
        while index < characters.count && characters[index].isWhitespace { index += 1 }
        var end = characters.count
        while end > index && characters[end - 1].isWhitespace { end -= 1 }
        guard end > index else { return nil }
        let word = Word(String(characters[index..<end]), at: positions[index])
        index = characters.count
        return word
    }

    /// Skips white space and returns the rest of the input as written, with its comments (`#` to
    /// the end of the line, outside quoted strings) removed and without surrounding white space;
    /// `nil` when nothing is left. For a plugin's arguments. A quote opens a string only at the
    /// start of a word, as ``BracketBalance/isClosed(plain:)`` counts them (`o'brien` is a word).
    mutating func restWithoutComments() -> Word? {
        while index < characters.count && characters[index].isWhitespace { index += 1 }
        let start = index
        var text = ""
        var quote: Character?
        var cursor = start
        while cursor < characters.count {
            let character = characters[cursor]
            if let open = quote {
                if character == "\\", cursor + 1 < characters.count {
                    text.append(character)
                    cursor += 1
                    text.append(characters[cursor])
                } else {
                    if character == open { quote = nil }
                    text.append(character)
                }
            } else if character == "\"" || character == "'",
                cursor == start || characters[cursor - 1].isWhitespace || "{[(,:=".contains(characters[cursor - 1])
            {
                quote = character
                text.append(character)
            } else if character == "#" {
                while cursor < characters.count && !characters[cursor].isNewline { cursor += 1 }
                continue
            } else {
                text.append(character)
            }
            cursor += 1
        }
        index = characters.count
        while let last = text.last, last.isWhitespace { text.removeLast() }
        guard !text.isEmpty else { return nil }
        return Word(text, at: positions[start])
    }

    // MARK: Strings

    /// Reads a string that starts at the current character (its opening quote).
    private mutating func string(quotedBy quote: Character) throws(ParseFailure) -> LexedToken {
        let start = index
        var text = ""
        var cursor = start + 1
        while cursor < characters.count {
            let character = characters[cursor]
            if character == quote {
                index = cursor + 1
                return LexedToken(token: .string(text), position: positions[start], range: start..<index)
            }
            guard character == "\\" else {
                text.append(character)
                cursor += 1
                continue
            }
            guard cursor + 1 < characters.count else { break }
            let escaped = characters[cursor + 1]
            if let control = StringEscape.control(escaped) {
                text.append(control)
                cursor += 2
                continue
            }
            switch escaped {
            case "/", "\\", "'", "\"": text.append(escaped)
            case "u":
                let (scalar, length) = try unicodeEscape(at: cursor, stringStart: start)
                text.unicodeScalars.append(scalar)
                cursor += length
                continue
            default:
                throw .error(
                    EmberQLError("invalid escape '\\\(escaped)' in a string", at: positions[cursor], length: 2),
                    incomplete: false)
            }
            cursor += 2
        }
        throw .incomplete("unterminated string", at: LexedToken(token: .end, position: positions[start], range: start..<start + 1))
    }

    /// Reads `\uXXXX` (and a following `\uXXXX` low surrogate after a high one) at `start`.
    /// - Returns: the scalar and how many characters the escape took.
    private func unicodeEscape(at start: Int, stringStart: Int) throws(ParseFailure) -> (Unicode.Scalar, Int) {
        switch StringEscape.unicode(in: characters, at: start) {
        case .scalar(let scalar, let length):
            return (scalar, length)
        case .truncated:
            throw .incomplete(
                "unterminated string", at: LexedToken(token: .end, position: positions[stringStart], range: stringStart..<stringStart + 1))
        case .notHex(let escape):
            let shown = String(characters[escape..<min(escape + 6, characters.count)])
            throw .error(
                EmberQLError("invalid escape '\(shown)' in a string (\\u needs four hex digits)", at: positions[escape], length: shown.count),
                incomplete: false)
        case .loneSurrogate:
            let shown = String(characters[start..<min(start + 6, characters.count)])
            throw .error(EmberQLError("invalid escape '\(shown)' in a string (a lone surrogate)", at: positions[start], length: 6), incomplete: false)
        }
    }

    // MARK: Numbers

    /// Whether `text` is a JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    static func isNumber(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var cursor = 0
        func digits() -> Int {
            let start = cursor
            while cursor < bytes.count, bytes[cursor] >= 0x30, bytes[cursor] <= 0x39 { cursor += 1 }
            return cursor - start
        }
        if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "-") { cursor += 1 }
        guard cursor < bytes.count else { return false }
        if bytes[cursor] == UInt8(ascii: "0") {
            cursor += 1
        } else if digits() == 0 {
            return false
        }
        if cursor < bytes.count, bytes[cursor] == UInt8(ascii: ".") {
            cursor += 1
            guard digits() > 0 else { return false }
        }
        if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "e") || bytes[cursor] == UInt8(ascii: "E") {
            cursor += 1
            if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "+") || bytes[cursor] == UInt8(ascii: "-") { cursor += 1 }
            guard digits() > 0 else { return false }
        }
        return cursor == bytes.count
    }
}
