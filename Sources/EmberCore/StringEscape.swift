/// The escapes JSON and JavaScript strings share, read from characters: the one reader of them
/// for the shell's query language and the rules language (each words its own errors).
public enum StringEscape {
    /// What a `\u` escape holds.
    public enum UnicodeResult: Equatable, Sendable {
        /// The scalar, and how many characters its escape took (6, or 12 for a surrogate pair).
        case scalar(Unicode.Scalar, length: Int)
        /// The text ends inside the escape.
        case truncated
        /// The escape starting at `escape` (an index of its `\`) does not have four hexadecimal
        /// digits.
        case notHex(escape: Int)
        /// A surrogate without its other half.
        case loneSurrogate
    }

    /// The character a one-letter escape stands for (`\n \t \r \b \f`), or `nil` for any other
    /// letter.
    public static func control(_ escaped: Character) -> Character? {
        switch escaped {
        case "n": "\n"
        case "t": "\t"
        case "r": "\r"
        case "b": "\u{8}"
        case "f": "\u{C}"
        default: nil
        }
    }

    /// Reads the `\uXXXX` whose `\` is at `backslash`, with the `\uXXXX` low surrogate that must
    /// follow a high one (JSON and JavaScript spell characters beyond U+FFFF as such a pair).
    /// - Complexity: O(1).
    public static func unicode(in characters: [Character], at backslash: Int) -> UnicodeResult {
        /// The four hexadecimal digits after the `\u` at `escape`.
        func hex(_ escape: Int) -> Result<UInt32, UnicodeFailure> {
            var value: UInt32 = 0
            for cursor in escape + 2..<escape + 6 {
                guard cursor < characters.count else { return .failure(UnicodeFailure(result: .truncated)) }
                guard characters[cursor].isASCII, let digit = characters[cursor].hexDigitValue else {
                    return .failure(UnicodeFailure(result: .notHex(escape: escape)))
                }
                value = value * 16 + UInt32(digit)
            }
            return .success(value)
        }
        let high: UInt32
        switch hex(backslash) {
        case .success(let value): high = value
        case .failure(let failure): return failure.result
        }
        if (0xDC00...0xDFFF).contains(high) { return .loneSurrogate }
        guard (0xD800...0xDBFF).contains(high) else { return .scalar(Unicode.Scalar(high)!, length: 6) }
        let next = backslash + 6
        guard next + 1 < characters.count, characters[next] == "\\", characters[next + 1] == "u" else { return .loneSurrogate }
        let low: UInt32
        switch hex(next) {
        case .success(let value): low = value
        case .failure(let failure): return failure.result
        }
        guard (0xDC00...0xDFFF).contains(low) else { return .loneSurrogate }
        return .scalar(Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!, length: 12)
    }

    /// A failure while reading hexadecimal digits, carried as an `Error` for `Result`.
    private struct UnicodeFailure: Error {
        let result: UnicodeResult
    }
}
