/// Searching a string for a run of code units, as JavaScript's and Java's string methods do
/// (`indexOf`, `startsWith`, `replace`): no Unicode normalisation, no grapheme clusters. Swift's
/// own `contains`, `hasPrefix`, `hasSuffix` and `replacing` match canonically equivalent
/// characters (`"\u{212A}"` finds `"K"`) and whole characters only (`"e\u{301}"` does not end
/// with `"\u{301}"`). Both strings are searched as UTF-8 bytes: a valid string's bytes hold a
/// character's only where that character is (UTF-8 is self-synchronizing), so a run of bytes
/// found is a run of code points, hence of UTF-16 code units.
extension String {
    /// The byte offsets of the first run of `part`'s code units at or after `start`, or `nil`.
    /// An empty `part` is found at `start`.
    /// - Complexity: O(n·m) for n and m bytes.
    func codeUnitRange(of part: String, from start: Int = 0) -> Range<Int>? {
        let text = Array(utf8), pattern = Array(part.utf8)
        return Self.range(of: pattern, in: text, from: start)
    }

    /// A copy with every run of `target`'s code units replaced, left to right, by
    /// `replacement` (the text itself when `target` is empty).
    /// - Complexity: O(n·m) for n and m bytes, plus the result.
    func replacingCodeUnits(_ target: String, with replacement: String) -> String {
        let text = Array(utf8), pattern = Array(target.utf8)
        guard !pattern.isEmpty, Self.range(of: pattern, in: text, from: 0) != nil else { return self }
        var result: [UInt8] = []
        result.reserveCapacity(text.count)
        var position = 0
        while let found = Self.range(of: pattern, in: text, from: position) {
            result += text[position..<found.lowerBound]
            result += replacement.utf8
            position = found.upperBound
        }
        result += text[position...]
        return String(decoding: result, as: UTF8.self)
    }

    private static func range(of pattern: [UInt8], in text: [UInt8], from start: Int) -> Range<Int>? {
        guard pattern.count <= text.count - start else { return nil }
        guard let first = pattern.first else { return start..<start }
        var index = start
        let last = text.count - pattern.count
        while index <= last {
            if text[index] == first, text[index..<index + pattern.count].elementsEqual(pattern) {
                return index..<index + pattern.count
            }
            index += 1
        }
        return nil
    }
}
