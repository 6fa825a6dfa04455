/// A strict JSON parser (RFC 8259) over UTF-8 bytes, reporting errors by line and column.
///
/// Integral literals that fit in 64 bits stay exact integers; other numbers are doubles (a
/// literal too large for a double is an error). Strings may use every escape, including
/// surrogate pairs; an unpaired surrogate or raw control character is an error. Nesting deeper
/// than ``maxNesting`` is refused rather than risking the stack.
public struct JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    public static let maxNesting = 512

    /// What a string escape that is half a surrogate pair (`\uD83D` alone) becomes.
    public enum UnpairedSurrogates: Sendable {
        /// An error: no Swift string can hold it (the default).
        case refused
        /// U+FFFD, the replacement character: for reading what else a text says when its only
        /// fault is such an escape (a JavaScript string may hold one).
        case replaced
    }

    /// The text's UTF-8, read in place (``parse(_:)`` lends the string's own storage).
    private let bytes: UnsafeBufferPointer<UInt8>
    private let unpairedSurrogates: UnpairedSurrogates
    private var index = 0
    private var nesting = 0
    /// The bytes of a string with escapes, as they are decoded (kept between strings).
    private var scratch: [UInt8] = []
    /// The member names down to a value that is read past, not built (``parse(_:skipping:)``).
    private var skipped: [String] = []
    /// The member names from the top to the object being read, while they match `skipped`.
    private var matched = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>, unpairedSurrogates: UnpairedSurrogates) {
        self.bytes = bytes
        self.unpairedSurrogates = unpairedSurrogates
    }

    /// Parses one JSON value, with optional surrounding white space.
    /// - Throws: ``DatabaseError`` `malformed_json`.
    /// - Complexity: O(n).
    public static func parse(_ text: String, unpairedSurrogates: UnpairedSurrogates = .refused) throws(DatabaseError) -> JSONValue {
        try parse(text, unpairedSurrogates: unpairedSurrogates, skipping: [])
    }

    /// Parses one JSON value as ``parse(_:unpairedSurrogates:)`` does, except the member at
    /// `member` (names from the top, e.g. `["d", "b", "d"]`): its value is read past, its
    /// brackets and strings matched but nothing built. `null` stands for it, or, for an
    /// object, an object of its first ``keptNames`` member names, each with `null`. For
    /// reading what a message is (and where a merge writes) before deciding whether to read
    /// what it carries: a value read past may still be malformed inside.
    /// - Throws: ``DatabaseError`` `malformed_json` (outside the member, or where the member's
    ///   brackets do not match).
    /// - Complexity: O(n), building nothing for the member.
    public static func parse(_ text: String, skipping member: [String]) throws(DatabaseError) -> JSONValue {
        try parse(text, unpairedSurrogates: .refused, skipping: member)
    }

    private static func parse(
        _ text: String, unpairedSurrogates: UnpairedSurrogates, skipping member: [String]
    ) throws(DatabaseError) -> JSONValue {
        var text = text
        // The string's own UTF-8, not a copy; a Swift string is valid UTF-8, so every run of
        // bytes between two ASCII delimiters is too.
        let result: Result<JSONValue, DatabaseError> = text.withUTF8 { bytes in
            var parser = JSONParser(bytes, unpairedSurrogates: unpairedSurrogates)
            parser.skipped = member
            do throws(DatabaseError) {
                parser.skipWhitespace()
                let value = try parser.parseValue()
                parser.skipWhitespace()
                if parser.index < parser.bytes.count {
                    throw parser.error("unexpected \(parser.describeCurrent()) after the JSON value")
                }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// How many member names of a skipped object ``parse(_:skipping:)`` keeps.
    public static let keptNames = 64

    /// Reads past one value: an object's first ``keptNames`` member names are kept (each with
    /// `null`), the rest of it and anything else read past without building it.
    private mutating func skipValueKeepingNames() throws(DatabaseError) -> JSONValue {
        guard peek(UInt8(ascii: "{")) else {
            try skipValue()
            return .null
        }
        let start = index
        index += 1
        var names: [(key: String, value: JSONValue)] = []
        while names.count < Self.keptNames {
            skipWhitespace()
            if peek(UInt8(ascii: "}")) {
                index += 1
                return .object(names)
            }
            if !names.isEmpty {
                guard peek(UInt8(ascii: ",")) else { throw error("unexpected \(describeCurrent()), expected ',' or '}' after an object member") }
                index += 1
                skipWhitespace()
            }
            guard peek(UInt8(ascii: "\"")) else { throw error("unexpected \(describeCurrent()), expected a member name in double quotes") }
            names.append((try parseString(), .null))
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw error("unexpected \(describeCurrent()), expected ':' after the member name") }
            index += 1
            try skipValue()
        }
        // The rest of the object, read past: from inside it, one bracket deep.
        try skipValue(depth: 1, from: start)
        return .object(names)
    }

    /// Reads past one value without building it: strings to their closing quote (escapes
    /// stepped over), arrays and objects to their matching bracket, counted rather than
    /// recursed into (no nesting limit is needed).
    /// `depth` brackets are open already (the value began at `start`).
    private mutating func skipValue(depth: Int = 0, from start: Int? = nil) throws(DatabaseError) {
        let start = start ?? index
        var depth = depth
        repeat {
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input inside a value", at: start) }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                while index < bytes.count && bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard index < bytes.count else { throw error("unexpected end of input inside a string", at: start) }
                index += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard depth > 0 else { throw error("unexpected \(describeCurrent())") }
                depth -= 1
                index += 1
            default:
                // Punctuation, numbers and words: the full read, if any, checks them.
                index += 1
            }
        } while depth > 0
    }

    // MARK: Values

    private mutating func parseValue() throws(DatabaseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected \(describeCurrent()), expected a value")
        }
    }

    private mutating func parseObject() throws(DatabaseError) -> JSONValue {
        try enter()
        // This object's nesting below the top: it is on the way to a skipped member when all
        // its enclosing objects were (`matched` of them).
        let outer = matched == nesting - 1 ? matched : -1
        index += 1  // {
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            index += 1
            nesting -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else {
                throw error("unexpected \(describeCurrent()), expected a member name in double quotes")
            }
            let key = try parseString()
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else {
                throw error("unexpected \(describeCurrent()), expected ':' after the member name")
            }
            index += 1
            skipWhitespace()
            if outer == nesting - 1, matched < skipped.count, skipped[matched] == key {
                // On the way to the member read past.
                if matched + 1 == skipped.count {
                    members.append((key, try skipValueKeepingNames()))
                } else {
                    matched += 1
                    let value = try parseValue()
                    matched -= 1
                    members.append((key, value))
                }
            } else {
                members.append((key, try parseValue()))
            }
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                index += 1
                continue
            }
            if peek(UInt8(ascii: "}")) {
                index += 1
                nesting -= 1
                return .object(members)
            }
            throw error("unexpected \(describeCurrent()), expected ',' or '}' after an object member")
        }
    }

    private mutating func parseArray() throws(DatabaseError) -> JSONValue {
        try enter()
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            index += 1
            nesting -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                index += 1
                continue
            }
            if peek(UInt8(ascii: "]")) {
                index += 1
                nesting -= 1
                return .array(elements)
            }
            throw error("unexpected \(describeCurrent()), expected ',' or ']' after an array element")
        }
    }

    private mutating func enter() throws(DatabaseError) {
        nesting += 1
        if nesting > Self.maxNesting {
            throw error("nesting deeper than \(Self.maxNesting) levels")
        }
    }

    private mutating func parseNumber() throws(DatabaseError) -> JSONValue {
        let start = index
        var integral = true
        if peek(UInt8(ascii: "-")) { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else {
            throw error("expected a digit after '-'")
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw error("a number must not have a leading zero")
            }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: ".")) {
            integral = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("expected a digit after the decimal point")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("expected a digit in the exponent")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if integral, let value = integerValue(start..<index) {
            return .int(value)
        }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(literal), value.isFinite else {
            throw error("the number \(literal) is too large", at: start)
        }
        return .double(value)
    }

    /// The integer an integral literal spells, or `nil` when it does not fit in 64 bits.
    /// - Complexity: O(n) in the literal's length.
    private func integerValue(_ range: Range<Int>) -> Int64? {
        var position = range.lowerBound
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        // Accumulated negatively: Int64.min has no positive counterpart.
        var value: Int64 = 0
        while position < range.upperBound {
            let digit = Int64(bytes[position] &- 0x30)
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.subtractingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
            position += 1
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    // MARK: Strings

    private mutating func parseString() throws(DatabaseError) -> String {
        let quote = index
        index += 1
        let runStart = index
        // A string without escapes (the usual one) is its run of bytes, made a string at once;
        // from the first escape on, the bytes are gathered in `scratch`, each escape as its UTF-8.
        var escaped = false
        while true {
            guard index < bytes.count else { throw error("unterminated string", at: quote) }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                if escaped { return String(decoding: scratch, as: UTF8.self) }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<(index - 1)]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                if !escaped {
                    escaped = true
                    scratch.removeAll(keepingCapacity: true)
                    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                }
                scratch.append(contentsOf: UTF8.encode(try parseEscape())!)
                continue
            }
            if byte < 0x20 { throw controlCharacter(byte) }
            if escaped { scratch.append(byte) }
            index += 1
        }
    }

    private func controlCharacter(_ byte: UInt8) -> DatabaseError {
        error("a raw control character (U+00\(String(byte, radix: 16, uppercase: true).leftPadded(2))) must be escaped in a string")
    }

    private mutating func parseEscape() throws(DatabaseError) -> Unicode.Scalar {
        let start = index
        index += 1  // backslash
        guard index < bytes.count else { throw error("unterminated escape", at: start) }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try parseHex4(escapeStart: start)
            if (0xD800...0xDBFF).contains(first) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    return try unpaired("unpaired surrogate \\u\(hex(first)) (a high surrogate must be followed by a low one)", at: start)
                }
                let lowStart = index
                index += 2
                let second = try parseHex4(escapeStart: lowStart)
                guard (0xDC00...0xDFFF).contains(second) else {
                    // Replaced, the second escape is read again on its own.
                    index = lowStart
                    return try unpaired("unpaired surrogate \\u\(hex(first)) (followed by \\u\(hex(second)))", at: start)
                }
                let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                return Unicode.Scalar(value)!
            }
            if (0xDC00...0xDFFF).contains(first) {
                return try unpaired("unpaired surrogate \\u\(hex(first)) (a low surrogate without a high one)", at: start)
            }
            return Unicode.Scalar(first)!
        default:
            index -= 1
            throw error("invalid escape \\\(describeCurrent(quoted: false))", at: start)
        }
    }

    /// U+FFFD for an unpaired surrogate escape, or the error `problem` (``UnpairedSurrogates``).
    private func unpaired(_ problem: String, at start: Int) throws(DatabaseError) -> Unicode.Scalar {
        switch unpairedSurrogates {
        case .refused: throw error(problem, at: start)
        case .replaced: return "\u{FFFD}"
        }
    }

    private mutating func parseHex4(escapeStart: Int) throws(DatabaseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = hexValue(bytes[index]) else {
                throw error("\\u must be followed by four hexadecimal digits", at: escapeStart)
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    // MARK: Helpers

    private mutating func expectWord(_ word: StaticString) throws(DatabaseError) {
        let start = index
        let count = word.utf8CodeUnitCount
        let matches = index + count <= bytes.count
            && word.withUTF8Buffer { expected in UnsafeBufferPointer(rebasing: bytes[index..<(index + count)]).elementsEqual(expected) }
        guard matches else {
            throw error("unexpected \(describeCurrent()), expected a value", at: start)
        }
        index += count
        // A letter right after the word (`nullx`) is not a value.
        if index < bytes.count, isLetter(bytes[index]) {
            throw error("unexpected \(describeCurrent()) after \(word)")
        }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }
    private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    private func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - 0x30)
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - 0x61 + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - 0x41 + 10)
        default: nil
        }
    }

    private func hex(_ value: UInt32) -> String {
        String(value, radix: 16, uppercase: true).leftPadded(4)
    }

    /// The character at the current position, quoted, for messages (`end of input` at the end).
    private func describeCurrent(quoted: Bool = true) -> String {
        guard index < bytes.count else { return "end of input" }
        var iterator = bytes[index...].prefix(4).makeIterator()
        var decoder = UTF8()
        let shown: String
        if case .scalarValue(let scalar) = decoder.decode(&iterator) {
            shown = scalar.value < 0x20 || scalar.value == 0x7F
                ? "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(4)
                : String(scalar)
        } else {
            shown = "byte 0x" + String(bytes[index], radix: 16, uppercase: true)
        }
        return quoted ? "'\(shown)'" : shown
    }

    /// A `malformed_json` error at the current position, or at `offset`.
    private func error(_ reason: String, at offset: Int? = nil) -> DatabaseError {
        let offset = min(offset ?? index, bytes.count)
        var line = 1, column = 1
        for byte in bytes[..<offset] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1  // count characters, not continuation bytes
            }
        }
        return DatabaseError(.malformedJSON(reason: reason, line: line, column: column))
    }
}

extension String {
    func leftPadded(_ width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
