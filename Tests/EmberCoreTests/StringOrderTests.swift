import Foundation
import Testing

@testable import EmberCore

/// Firebase's string order (UTF-16 code units) and byte-exact equality, with the two-word fast
/// path for small strings held to the byte-wise comparison.
@Suite("StringOrder")
struct StringOrderTests {
    /// The byte-wise comparison, the reference (the fast path is bypassed: arrays of bytes).
    private static func reference(_ a: String, _ b: String) -> Int {
        let x = Array(a.utf8), y = Array(b.utf8)
        return x.withUnsafeBufferPointer { x in y.withUnsafeBufferPointer { y in StringOrder.compareUTF16(x, y) } }
    }

    /// Strings of every small length and some longer, made the ways keys are made: literals,
    /// decoded bytes, interpolation, substrings, numbers, non-ASCII text, NUL bytes.
    private static let strings: [String] = {
        var result: [String] = ["", "a", "b", "k", "k0", "k1", "k10", "k9", "A", "Z", "z", "-", "~", ".priority", "abcdefghijklmno", "abcdefghijklmnp",
            "abcdefghijklmnop", "abcdefghijklmno\u{0}", "a\u{0}", "a\u{0}\u{0}", "é", "e\u{301}", "\u{FFFF}", "\u{10000}", "日本", "-NxYz12345abcdEF",
            "-NxYz12345abcdEG", String(repeating: "x", count: 15), String(repeating: "x", count: 16), String(repeating: "x", count: 14) + "é"]
        for length in 0...17 {
            result.append(String(decoding: (0..<length).map { UInt8(0x61 + $0 % 26) }, as: UTF8.self))
            result.append(String(decoding: (0..<length).map { _ in UInt8(0x7E) }, as: UTF8.self))
            result.append("k\(length * 1_000_003)")
            let long = "prefix-\(length)-" + String(repeating: "q", count: length)
            result.append(String(long.dropFirst(7)))
        }
        return result
    }()

    @Test("every pair of strings compares as their bytes do, and is equal exactly when its bytes are")
    func pairs() {
        for a in Self.strings {
            for b in Self.strings {
                #expect(StringOrder.compareUTF16(a, b).signum() == Self.reference(a, b).signum(), "\(Array(a.utf8)) vs \(Array(b.utf8))")
                #expect(StringOrder.bytesEqual(a, b) == (Array(a.utf8) == Array(b.utf8)), "\(Array(a.utf8)) vs \(Array(b.utf8))")
            }
        }
    }

    @Test("the small-string representation the fast path reads holds: short ASCII keys take it, longer or non-ASCII ones do not")
    func representation() {
        let made = (0..<1_000).map { "k\($0)" }
        for (a, b) in zip(made, made.dropFirst()) {
            #expect(StringOrder.compareSmallASCII(a, b) == Self.reference(a, b).signum())
            #expect(StringOrder.smallBytesEqual(a, b) == false)
            #expect(StringOrder.smallBytesEqual(a, String(decoding: Array(a.utf8), as: UTF8.self)) == true)
        }
        #expect(StringOrder.compareSmallASCII("abcdefghijklmno", "abcdefghijklmnp") == -1)
        #expect(StringOrder.compareSmallASCII("ab", "ab\u{0}") == -1)
        #expect(StringOrder.compareSmallASCII("abcdefghijklmnop", "a") == nil, "16 bytes: not small")
        #expect(StringOrder.compareSmallASCII("é", "e") == nil, "not ASCII")
        #expect(StringOrder.smallBytesEqual("é", "é") == true, "small, not ASCII")
        #expect(StringOrder.smallBytesEqual("é", "e\u{301}") == false)
        #expect(StringOrder.smallBytesEqual(String(repeating: "x", count: 16), String(repeating: "x", count: 16)) == nil)
    }

    @Test("keys sort in Firebase's order: integers first, then UTF-16 order, supplementary characters before U+E000 and above")
    func keyOrder() {
        let keys: [ChildKey] = ["b", "a", "10", "9", "-1", "k10", "k9", "\u{FFFF}", "\u{10000}", "~", "A"]
        #expect(keys.sorted().map(\.name) == ["-1", "9", "10", "A", "a", "b", "k10", "k9", "~", "\u{10000}", "\u{FFFF}"])
    }
}
