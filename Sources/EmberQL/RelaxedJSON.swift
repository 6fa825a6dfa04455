import EmberCore

/// The shell's JSON: relaxed for typing, exact in what it produces.
///
/// Over strict JSON it accepts unquoted object keys (`{name: 'Al'}`; a key may be a deep path,
/// `{a/b: 1}`), single-quoted strings (and the escape `\'`), trailing commas in objects and
/// arrays, `#` comments, case-insensitive `true`, `false` and `null`, and two server values:
/// `now` (``JSONValue/serverTimestamp``) and `increment(N)` (``JSONValue/increment(_:)`` for an
/// integer). Integers that fit in 64 bits are ``JSONValue/int(_:)``; any other number (and `-0`)
/// is a ``JSONValue/double(_:)``; numbers that do not fit a double, `NaN` and `Infinity` are
/// errors. Object members keep the order they were written in.
public enum RelaxedJSON {
    /// The deepest nesting of arrays and objects accepted, as ``EmberCore/JSONParser`` accepts.
    public static let maxNesting = JSONParser.maxNesting

    /// Parses one relaxed-JSON value, with optional white space and comments around it.
    /// - Throws: ``EmberQLError`` at the offending token.
    public static func parse(_ text: String) throws(EmberQLError) -> JSONValue {
        var lexer = Lexer(text)
        do throws(ParseFailure) {
            let value = try value(from: &lexer)
            let after = try lexer.next(.value)
            guard after.isEnd else { throw ParseFailure.error("unexpected \(after.token.shown) after the value", at: after) }
            return value
        } catch {
            throw error.emberQLError
        }
    }

    /// An open array or object, while its members are read.
    private enum Container {
        case array(open: LexedToken, elements: [JSONValue])
        case object(open: LexedToken, members: [(key: String, value: JSONValue)], key: String)

        var unterminated: ParseFailure {
            switch self {
            case .array(let open, _): .incomplete("unterminated array", at: open)
            case .object(let open, _, _): .incomplete("unterminated object", at: open)
            }
        }
    }

    /// Reads one value from `lexer`, without recursion (so deep nesting cannot overflow the
    /// stack).
    static func value(from lexer: inout Lexer) throws(ParseFailure) -> JSONValue {
        var stack: [Container] = []
        var token = try lexer.next(.value)
        while true {
            var completed: JSONValue
            switch token.token {
            case .leftBrace, .leftBracket:
                guard stack.count < maxNesting else {
                    throw .error("values nest deeper than \(maxNesting) levels", at: token)
                }
                if token.token == .leftBracket {
                    if try lexer.peek(.value).token == .rightBracket {
                        _ = try lexer.next(.value)
                        completed = .array([])
                    } else {
                        stack.append(.array(open: token, elements: []))
                        token = try lexer.next(.value)
                        continue
                    }
                } else {
                    let first = try lexer.next(.value)
                    if first.token == .rightBrace {
                        completed = .object([])
                    } else {
                        let key = try self.key(first, open: token, lexer: &lexer)
                        stack.append(.object(open: token, members: [], key: key))
                        token = try lexer.next(.value)
                        continue
                    }
                }
            case .string(let text):
                completed = .string(text)
            case .number(let text):
                completed = try number(text, at: token)
            case .word(let word), .path(let word):
                completed = try literal(word, at: token, lexer: &lexer)
            case .end:
                if let open = stack.last { throw open.unterminated }
                throw .error("expected a value, found the end of the line", at: token)
            default:
                throw .error("expected a value, found \(token.token.shown)", at: token)
            }
            // Hand the finished value to the containers it closes.
            deliver: while true {
                guard let top = stack.popLast() else { return completed }
                switch top {
                case .array(let open, var elements):
                    elements.append(completed)
                    let separator = try lexer.next(.value)
                    switch separator.token {
                    case .comma:
                        if try lexer.peek(.value).token == .rightBracket {
                            _ = try lexer.next(.value)
                            completed = .array(elements)
                            continue deliver
                        }
                        stack.append(.array(open: open, elements: elements))
                        token = try lexer.next(.value)
                        break deliver
                    case .rightBracket:
                        completed = .array(elements)
                    case .end:
                        throw top.unterminated
                    default:
                        throw .error("expected ',' or ']' after an element, found \(separator.token.shown)", at: separator)
                    }
                case .object(let open, var members, let key):
                    members.append((key: key, value: completed))
                    let separator = try lexer.next(.value)
                    switch separator.token {
                    case .comma:
                        let next = try lexer.next(.value)
                        if next.token == .rightBrace {
                            completed = .object(members)
                            continue deliver
                        }
                        let nextKey = try self.key(next, open: open, lexer: &lexer)
                        stack.append(.object(open: open, members: members, key: nextKey))
                        token = try lexer.next(.value)
                        break deliver
                    case .rightBrace:
                        completed = .object(members)
                    case .end:
                        throw top.unterminated
                    default:
                        throw .error(
                            "expected ',' or '}' after the value of \(quoted(key)), found \(separator.token.shown)",
                            at: separator)
                    }
                }
            }
        }
    }

    /// An object key (a bare word, a number or a string) and the colon after it.
    private static func key(_ token: LexedToken, open: LexedToken, lexer: inout Lexer) throws(ParseFailure) -> String {
        let key: String
        switch token.token {
        case .word(let text), .path(let text), .number(let text), .string(let text):
            key = text
        case .end:
            throw .incomplete("unterminated object", at: open)
        default:
            throw .error("expected a key or '}', found \(token.token.shown)", at: token)
        }
        let colon = try lexer.next(.value)
        switch colon.token {
        case .colon: return key
        case .end: throw .incomplete("unterminated object", at: open)
        default: throw .error("expected ':' after key \(quoted(key)), found \(colon.token.shown)", at: colon)
        }
    }

    /// The value of a JSON number: an exact integer when it is integral and fits in 64 bits.
    static func number(_ text: String, at token: LexedToken) throws(ParseFailure) -> JSONValue {
        if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
            if text == "-0" { return .double(-0.0) }
            if let integer = Int64(text) { return .int(integer) }
        }
        guard let double = Double(text), double.isFinite else {
            throw .error("number \(quoted(text)) is out of range (a double holds about ±1.8e308)", at: token)
        }
        return .double(double)
    }

    /// `true`, `false`, `null`, `now` or `increment(N)`, in any case; any other bare word is an
    /// error that suggests quoting it.
    private static func literal(_ word: String, at token: LexedToken, lexer: inout Lexer) throws(ParseFailure) -> JSONValue {
        switch word.lowercased() {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        case "now": return .serverTimestamp
        case "increment": return try increment(after: token, lexer: &lexer)
        case "nan", "infinity", "-infinity", "+infinity", "inf", "-inf", "+inf", "+nan", "-nan":
            throw .error("expected a value, found \(token.token.shown) (numbers must be finite)", at: token)
        default:
            let hint = word.contains("'") && !word.contains("\"") ? "\"\(word)\"" : "'\(word)'"
            throw .error("expected a value, found \(token.token.shown) (quote text: \(hint))", at: token)
        }
    }

    /// The `(N)` of `increment(N)`.
    private static func increment(after word: LexedToken, lexer: inout Lexer) throws(ParseFailure) -> JSONValue {
        let open = try lexer.next(.value)
        guard open.token == .leftParenthesis else {
            throw .error("expected '(' after 'increment', found \(open.token.shown)", at: open)
        }
        let amount = try lexer.next(.value)
        let value: JSONValue
        switch amount.token {
        case .number(let text):
            value = try number(text, at: amount)
        case .end:
            throw .incomplete("expected a number after 'increment(', found the end of the line", at: amount)
        default:
            throw .error("increment needs a number, found \(amount.token.shown)", at: amount)
        }
        let close = try lexer.next(.value)
        switch close.token {
        case .rightParenthesis: break
        case .end: throw .incomplete("expected ')' after the increment, found the end of the line", at: close)
        default: throw .error("expected ')' after the increment, found \(close.token.shown)", at: close)
        }
        switch value {
        case .int(let integer): return .increment(integer)
        default: return [".sv": ["increment": value]]
        }
    }

    /// `text` in single quotes, as messages show words.
    static func quoted(_ text: String) -> String { "'\(text)'" }
}
