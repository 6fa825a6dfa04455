import EmberCore

/// A rules file read as JSON with comments (`//`, `/* */`), keeping where each value starts, so
/// that an error can name `line:column` (the JSON parser of EmberCore keeps no positions).
struct RulesDocument {
    /// A syntax error at a place.
    struct SyntaxError: Error {
        let reason: String
        let position: RulesPosition
    }

    /// How deeply objects and arrays may nest: a path has at most 32 keys, so a rules tree
    /// deeper than that guards nothing; reading one recurses once per level, and a document
    /// nested thousands deep must be an error, not a crash.
    static let maxNesting = 64

    private let characters: [Character]
    private var index = 0
    /// How many objects and arrays are open.
    private var nesting = 0
    private var line = 1
    private var column = 1

    private init(_ text: String) {
        characters = Array(text)
    }

    /// Parses `text`.
    /// - Throws: ``SyntaxError`` at the first character that is not JSON (with comments).
    /// - Complexity: O(n).
    static func parse(_ text: String) throws(SyntaxError) -> RulesNode {
        var parser = RulesDocument(text)
        try parser.skipSpace()
        let value = try parser.parseValue()
        try parser.skipSpace()
        guard parser.index == parser.characters.count else { throw parser.error("unexpected text after the document") }
        return value
    }

    private var position: RulesPosition { RulesPosition(line: line, column: column) }

    private func error(_ reason: String) -> SyntaxError { SyntaxError(reason: reason, position: position) }

    private mutating func step() {
        if characters[index] == "\n" {
            line += 1
            column = 1
        } else {
            column += 1
        }
        index += 1
    }

    private mutating func skipSpace() throws(SyntaxError) {
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace {
                step()
            } else if character == "/", index + 1 < characters.count, characters[index + 1] == "/" {
                while index < characters.count, characters[index] != "\n" { step() }
            } else if character == "/", index + 1 < characters.count, characters[index + 1] == "*" {
                let start = position
                step()
                step()
                while index < characters.count, !(characters[index] == "*" && index + 1 < characters.count && characters[index + 1] == "/") {
                    step()
                }
                guard index < characters.count else { throw SyntaxError(reason: "the comment is not closed", position: start) }
                step()
                step()
            } else {
                return
            }
        }
    }

    private mutating func parseValue() throws(SyntaxError) -> RulesNode {
        guard index < characters.count else { throw error("the document ends where a value should be") }
        let start = position
        let opens = characters[index] == "{" || characters[index] == "["
        if opens {
            nesting += 1
            guard nesting <= Self.maxNesting else {
                throw error("the document nests objects and arrays deeper than \(Self.maxNesting) levels (a path has at most 32 keys)")
            }
        }
        defer { if opens { nesting -= 1 } }
        switch characters[index] {
        case "{":
            step()
            var members: [RulesNode.Member] = []
            try skipSpace()
            if index < characters.count, characters[index] == "}" {
                step()
                return .object(members, start)
            }
            while true {
                try skipSpace()
                guard index < characters.count, characters[index] == "\"" else { throw error("expected a key in double quotes") }
                let key = try string()
                try skipSpace()
                guard index < characters.count, characters[index] == ":" else { throw error("expected : after the key \"\(key)\"") }
                step()
                try skipSpace()
                if members.contains(where: { StringOrder.bytesEqual($0.key, key) }) { throw error("the key \"\(key)\" appears twice") }
                members.append(RulesNode.Member(key: key, value: try parseValue()))
                try skipSpace()
                guard index < characters.count else { throw error("the object is not closed") }
                if characters[index] == "," {
                    step()
                    continue
                }
                guard characters[index] == "}" else { throw error("expected , or } in the object") }
                step()
                return .object(members, start)
            }
        case "[":
            step()
            var elements: [RulesNode] = []
            try skipSpace()
            if index < characters.count, characters[index] == "]" {
                step()
                return .array(elements, start)
            }
            while true {
                try skipSpace()
                elements.append(try parseValue())
                try skipSpace()
                guard index < characters.count else { throw error("the array is not closed") }
                if characters[index] == "," {
                    step()
                    continue
                }
                guard characters[index] == "]" else { throw error("expected , or ] in the array") }
                step()
                return .array(elements, start)
            }
        case "\"":
            return .string(try string(), start)
        case "t", "f", "n":
            for (word, value) in [("true", RulesNode.boolean(true, start)), ("false", .boolean(false, start)), ("null", .null(start))]
            where characters[index...].starts(with: word) {
                for _ in word { step() }
                return value
            }
            throw error("unexpected \"\(characters[index])\"")
        default:
            let begin = index
            while index < characters.count, "+-0123456789.eE".contains(characters[index]) { step() }
            guard begin < index, let number = Double(String(characters[begin..<index])) else {
                throw SyntaxError(reason: "unexpected \"\(characters[begin])\"", position: start)
            }
            return .number(number, start)
        }
    }

    /// A string: no line break inside, so the column moves by what was read.
    private mutating func string() throws(SyntaxError) -> String {
        do {
            let (text, end) = try StringLiteral.read(characters, at: index, allowsNewlines: false)
            column += end - index
            index = end
            return text
        } catch {
            throw SyntaxError(reason: error.reason, position: RulesPosition(line: line, column: column + error.offset - index))
        }
    }
}
