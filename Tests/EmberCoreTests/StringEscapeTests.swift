import EmberCore
import Testing

/// The escapes the query language and the rules language share.
@Suite struct StringEscapeTests {
    private func unicode(_ text: String) -> StringEscape.UnicodeResult { StringEscape.unicode(in: Array(text), at: 0) }

    @Test func controlLetters() {
        #expect(["n", "t", "r", "b", "f"].map { StringEscape.control($0) } == ["\n", "\t", "\r", "\u{8}", "\u{C}"])
        #expect(StringEscape.control("u") == nil && StringEscape.control("x") == nil)
    }

    @Test func unicodeEscapes() {
        #expect(unicode(#"\u00e9rest"#) == .scalar("é", length: 6))
        #expect(unicode(#"\ud83d\ude00"#) == .scalar("😀", length: 12))
        #expect(unicode(#"\ud83d"#) == .loneSurrogate)
        #expect(unicode(#"\ud83dx"#) == .loneSurrogate)
        #expect(unicode(#"\ud83d\u0041"#) == .loneSurrogate)
        #expect(unicode(#"\ude00"#) == .loneSurrogate)
        #expect(unicode(#"\u12"#) == .truncated)
        #expect(unicode(#"\ud83d\ude"#) == .truncated)
        #expect(unicode(#"\u12g4"#) == .notHex(escape: 0))
        #expect(unicode(#"\ud83d\u12g4"#) == .notHex(escape: 6))
        #expect(unicode(#"\u１２３４"#) == .notHex(escape: 0), "full-width digits are not hexadecimal")
    }
}
