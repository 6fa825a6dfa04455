import EmberCore
import Testing

@testable import EmberQL

@Suite struct LexerTests {
    /// Every token of `source` in `mode`, up to the end.
    private func tokens(_ source: String, _ mode: LexMode = .word) throws(ParseFailure) -> [LexedToken] {
        var lexer = Lexer(source)
        var tokens: [LexedToken] = []
        while true {
            let token = try lexer.next(mode)
            if token.isEnd { return tokens }
            tokens.append(token)
        }
    }

    private func kinds(_ source: String, _ mode: LexMode = .word) throws -> [Token] {
        try tokens(source, mode).map(\.token)
    }

    @Test func wordModeRunsToWhiteSpace() throws {
        #expect(try kinds("set /users/a{b} x,y") == [.word("set"), .path("/users/a{b}"), .word("x,y")])
        #expect(try kinds("get ../bob ./x . ..") == [.word("get"), .path("../bob"), .path("./x"), .path("."), .path("..")])
        #expect(try kinds("{a") == [.leftBrace, .word("a")])
        #expect(try kinds("o'brien") == [.word("o'brien")])
    }

    @Test func valueModeStopsAtPunctuation() throws {
        #expect(
            try kinds("{a/b: [1, 'x'], c:increment(2)}", .value) == [
                .leftBrace, .word("a/b"), .colon, .leftBracket, .number("1"), .comma, .string("x"), .rightBracket,
                .comma, .word("c"), .colon, .word("increment"), .leftParenthesis, .number("2"), .rightParenthesis,
                .rightBrace,
            ])
    }

    @Test func rawModeTakesPunctuationIntoWords() throws {
        #expect(try kinds("(a) {b", .raw) == [.word("(a)"), .word("{b")])
        #expect(try kinds("'a b' c", .raw) == [.string("a b"), .word("c")])
    }

    @Test func numbersAreToldFromWords() throws {
        #expect(try kinds("0 -3 2.5e3 1E-2 -0", .value) == ["0", "-3", "2.5e3", "1E-2", "-0"].map(Token.number))
        #expect(try kinds("01 1. .5 1e -x 12abc +1", .value) == ["01", "1.", ".5", "1e", "-x", "12abc", "+1"].map {
            $0.hasPrefix(".") ? Token.path($0) : Token.word($0)
        })
        for text in ["0", "-0", "12", "-12.5", "1e9", "1.5E+3", "2e-3"] { #expect(Lexer.isNumber(text), "\(text)") }
        for text in ["", "-", "01", "1.", ".5", "1e", "1e+", "--1", "1.2.3", "0x10", "Infinity"] {
            #expect(!Lexer.isNumber(text), "\(text)")
        }
    }

    @Test func positionsCountLinesColumnsAndCharacters() throws {
        let lexed = try tokens("set /a {\n  b: 1\n}", .value)
        #expect(lexed.map(\.position) == [
            at(1), at(5), at(8),
            SourcePosition(line: 2, column: 3, offset: 11), SourcePosition(line: 2, column: 4, offset: 12),
            SourcePosition(line: 2, column: 6, offset: 14), SourcePosition(line: 3, column: 1, offset: 16),
        ])
        #expect(lexed.map(\.length) == [3, 2, 1, 1, 1, 1, 1])
    }

    @Test func columnsCountCharactersNotBytes() throws {
        let lexed = try tokens("set /é😀 'e\u{301}' x")
        #expect(lexed.map(\.position) == [at(1), at(5), at(9), at(13)])
        #expect(lexed[2].token == .string("e\u{301}"))
        #expect(lexed[2].length == 3)
    }

    @Test func crlfIsOneNewline() throws {
        let lexed = try tokens("get\r\n/a")
        #expect(lexed[1].position == SourcePosition(line: 2, column: 1, offset: 4))
    }

    @Test func commentsProduceNoTokens() throws {
        #expect(try kinds("get # a comment\n/a#b # another") == [.word("get"), .path("/a")])
        #expect(try kinds("'#not a comment' \"# nor this\"") == [.string("#not a comment"), .string("# nor this")])
        #expect(try kinds("# only a comment").isEmpty)
    }

    @Test func theEndStaysWhereTheLastTokenEnded() throws {
        var lexer = Lexer("pwd   # comment\n  ")
        _ = try lexer.next(.word)
        let end = try lexer.next(.word)
        #expect(end.token == .end)
        #expect(end.position == at(4))
        #expect(try lexer.next(.value).position == at(4))
    }

    @Test func stringsUnescape() throws {
        #expect(try kinds(#""a\nb\tc\r\b\f\/\\\"\'" 'it\'s' "\u00e9\uD83D\uDE00""#) == [
            .string("a\nb\tc\r\u{8}\u{C}/\\\"'"), .string("it's"), .string("é😀"),
        ])
        #expect(try kinds("'a\nb'") == [.string("a\nb")])
        #expect(try kinds("'say \"hi\"'") == [.string("say \"hi\"")])
    }

    @Test func badStringsAreErrors() {
        let cases: [(String, String, SourcePosition, Bool)] = [
            ("'abc", "unterminated string", at(1), true),
            ("x \"abc\\\"", "unterminated string", at(3), true),
            ("\"a\\u00", "unterminated string", at(1), true),
            (#""a\qb""#, "invalid escape '\\q' in a string", at(3), false),
            (#""\u12G4""#, "invalid escape '\\u12G4' in a string (\\u needs four hex digits)", at(2), false),
            (#""\uD800x""#, "invalid escape '\\uD800' in a string (a lone surrogate)", at(2), false),
            (#""\uDC00""#, "invalid escape '\\uDC00' in a string (a lone surrogate)", at(2), false),
        ]
        for (source, message, position, incomplete) in cases {
            var failure: ParseFailure?
            do throws(ParseFailure) { _ = try tokens(source) } catch { failure = error }
            guard case .error(let error, let isIncomplete)? = failure else {
                Issue.record("no error for \(source)")
                continue
            }
            #expect(error.message == message, "\(source)")
            #expect(error.position == position, "\(source)")
            #expect(isIncomplete == incomplete, "\(source)")
        }
    }

    @Test func verbatimRestKeepsEverything() {
        var lexer = Lexer("lua  print(#t) # length\n  x = 1  \n")
        _ = try? lexer.next(.word)
        let rest = lexer.verbatimRest()
        #expect(rest == Word("print(#t) # length\n  x = 1", at: at(6)))
        #expect(lexer.isAtEnd)
        var empty = Lexer("lua   ")
        _ = try? empty.next(.word)
        #expect(empty.verbatimRest() == nil)
    }

    @Test func restWithoutCommentsDropsComments() {
        var lexer = Lexer("greet  a '#b' o'brien # note\n c # more")
        _ = try? lexer.next(.word)
        #expect(lexer.restWithoutComments() == Word("a '#b' o'brien \n c", at: at(8)))
    }

    @Test func tokensShowThemselves() {
        #expect(Token.word("x").shown == "'x'")
        #expect(Token.string("x").shown == "string \"x\"")
        #expect(Token.end.shown == "the end of the line")
        #expect(Token.comma.shown == "','")
    }
}
