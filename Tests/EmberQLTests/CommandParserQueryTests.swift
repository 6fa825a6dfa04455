import EmberCore
import Testing

@testable import EmberQL

@Suite struct CommandParserQueryTests {
    @Test func ordersInAnyCase() throws {
        #expect(try query("get /a orderBy key").params == QueryParams().orderedBy(.key))
        #expect(try query("get /a ORDERBY Value").params == QueryParams().orderedBy(.value))
        #expect(try query("get /a orderby priority").params == QueryParams().orderedBy(.priority))
        #expect(try query("get /a orderBy child score").params == QueryParams().orderedBy(.child("score")))
        #expect(try query("get /a orderBy child /stats/score").params == QueryParams().orderedBy(.child("stats/score")))
        #expect(try query("get /a orderBy child 'a b'").params == QueryParams().orderedBy(.child("a b")))
    }

    @Test func limits() throws {
        #expect(try query("get /a limitToFirst 3").params == QueryParams().limitedToFirst(3))
        #expect(try query("get /a LimitToLast 10").params == QueryParams().limitedToLast(10))
    }

    @Test func boundsWithAndWithoutKeys() throws {
        let byChild = try QueryParams().orderedBy(.child("age"))
        #expect(try query("get /a orderBy child age startAt 18").params == byChild.startingAt(.int(18)))
        #expect(try query("get /a orderBy child age startAt 18 bob").params == byChild.startingAt(.int(18), key: "bob"))
        #expect(try query("get /a orderBy child age startAfter 1.5 'big bob'").params == byChild.startingAfter(.double(1.5), key: "big bob"))
        #expect(try query("get /a orderBy child age endAt 'z'").params == byChild.endingAt(.string("z")))
        #expect(try query("get /a orderBy child age endBefore null").params == byChild.endingBefore(nil))
        #expect(try query("get /a orderBy child age equalTo true").params == byChild.equalTo(.bool(true)))
        #expect(try query("get /a orderBy child age equalTo 3 7").params == byChild.equalTo(.int(3), key: "7"))
        #expect(try query("get /a orderBy value startAt 2.0").params == QueryParams().orderedBy(.value).startingAt(.int(2)))
        #expect(try query("get /a orderBy key startAt 'm' limitToFirst 20").params
            == QueryParams().orderedBy(.key).startingAt(.string("m")).limitedToFirst(20))
    }

    @Test func aKeywordAfterABoundIsNotItsKey() throws {
        let params = try QueryParams().orderedBy(.value).startingAt(.int(1)).limitedToFirst(2)
        #expect(try query("get /a orderBy value startAt 1 limitToFirst 2").params == params)
        #expect(try query("watch /a startAt 1 child_added").params == QueryParams().startingAt(.int(1)))
        #expect(try parsed("watch /a startAt 1 child_added") == .watch(
            PathExpression("/a", at: at(7)), QueryExpression(params: QueryParams().startingAt(.int(1)), text: "startAt 1"),
            events: [.childAdded]))
        #expect(try query("get /a startAt 1 child_added").params == QueryParams().startingAt(.int(1), key: "child_added"))
    }

    @Test func modifiersComeInAnyOrder() throws {
        #expect(try query("get /a limitToLast 3 orderBy child score").params
            == QueryParams().orderedBy(.child("score")).limitedToLast(3))
    }

    @Test func textIsTheModifiersAsWrittenWithSingleSpaces() throws {
        #expect(try query("get /a   orderBy   child score\n  limitToLast  3").text == "orderBy child score limitToLast 3")
        #expect(try query("get /a orderBy key equalTo  'a b'   # comment").text == "orderBy key equalTo 'a b'")
        #expect(try query("ls /a ORDERBY value").text == "ORDERBY value")
        #expect(try query("get /a") == .none)
        #expect(try query("watch /a value") == .none)
    }

    @Test func timeoutSetsTheWaitForTheConnection() throws {
        #expect(try query("get /a timeout 100").connectTimeout == 100)
        #expect(try query("get /a timeout 100") == QueryExpression(params: .default, text: "", connectTimeout: 100))
        #expect(try query("ls /a TIMEOUT 0").connectTimeout == 0)
        #expect(try query("get /a").connectTimeout == nil)
        let expression = try query("get /a orderBy value timeout 250 limitToLast 2")
        #expect(try expression.params == QueryParams().orderedBy(.value).limitedToLast(2))
        #expect(expression.text == "orderBy value limitToLast 2", "the timeout is not a query modifier")
        #expect(expression.connectTimeout == 250)
        // After a bound, `timeout` is the next modifier, not the bound's key.
        #expect(try query("get /a startAt 1 timeout 5") == QueryExpression(params: try QueryParams().startingAt(.int(1)), text: "startAt 1", connectTimeout: 5))
        // Right after the command it is the keyword, not a path; `./timeout` is the path.
        #expect(try parsed("get timeout 5") == .get(PathExpression("", at: at(5)), QueryExpression(params: .default, text: "", connectTimeout: 5)))
        #expect(try parsed("get ./timeout") == .get(PathExpression("./timeout", at: at(5)), .none))
    }

    static let errors: [ErrorCase] = [
        ErrorCase(
            "get /a limit 3",
            "unknown modifier 'limit' (did you mean limitToFirst? expected orderBy, limitToFirst, limitToLast, startAt, startAfter, endAt, endBefore, equalTo, timeout)",
            1, 8, length: 5),
        ErrorCase(
            "watch /a added",
            "unknown modifier or event 'added' (expected orderBy, limitToFirst, limitToLast, startAt, startAfter, endAt, endBefore, equalTo, or an event: value, child_added, child_changed, child_removed, child_moved)",
            1, 10, length: 5),
        // Issue 20: a typo gets a "did you mean".
        ErrorCase(
            "watch /a valu",
            "unknown modifier or event 'valu' (did you mean value? expected orderBy, limitToFirst, limitToLast, startAt, startAfter, endAt, endBefore, equalTo, or an event: value, child_added, child_changed, child_removed, child_moved)",
            1, 10, length: 4),
        ErrorCase(
            "get /a limitToFrist 3",
            "unknown modifier 'limitToFrist' (did you mean limitToFirst? expected orderBy, limitToFirst, limitToLast, startAt, startAfter, endAt, endBefore, equalTo, timeout)",
            1, 8, length: 12),
        ErrorCase("get /a {x}", "expected a query modifier, found '{'", 1, 8),
        ErrorCase("get /a timeout", "'timeout' needs an integer number of milliseconds, found the end of the line", 1, 15),
        ErrorCase("get /a timeout 1.5", "'timeout' needs an integer number of milliseconds, found '1.5'", 1, 16, length: 3),
        ErrorCase(
            "get /a timeout 86400001", "'timeout' must be between 0 and 86400000 milliseconds (1 day), not 86400001", 1, 16,
            length: 8),
        ErrorCase("get /a timeout 5 timeout 6", "'timeout' is given twice", 1, 18, length: 7),
        ErrorCase(
            "watch /a timeout 5",
            "unknown modifier or event 'timeout' (expected orderBy, limitToFirst, limitToLast, startAt, startAfter, endAt, endBefore, equalTo, or an event: value, child_added, child_changed, child_removed, child_moved)",
            1, 10, length: 7),
        ErrorCase("watch /a 'value'", "expected a query modifier or an event, found string \"value\"", 1, 10, length: 7),
        ErrorCase("get /a limitToFirst 0", "'limitToFirst' needs a positive integer, found '0'", 1, 21),
        ErrorCase("get /a limitToLast -2", "'limitToLast' needs a positive integer, found '-2'", 1, 20, length: 2),
        ErrorCase("get /a limitToFirst 1.5", "'limitToFirst' needs a positive integer, found '1.5'", 1, 21, length: 3),
        ErrorCase("get /a limitToFirst", "'limitToFirst' needs a positive integer, found the end of the line", 1, 20),
        ErrorCase(
            "get /a limitToFirst 2 limitToLast 3",
            "invalid query: limitToLast: the limit is already set (by limitToFirst or limitToLast)", 1, 23, length: 13),
        ErrorCase("get /a orderBy foo", "orderBy needs key, value, priority or child PATH, found 'foo'", 1, 16, length: 3),
        ErrorCase("get /a orderBy", "orderBy needs key, value, priority or child PATH, found the end of the line", 1, 15),
        ErrorCase("get /a orderBy child", "'orderBy child' needs a child path, found the end of the line", 1, 21),
        ErrorCase(
            "get /a orderBy key orderBy value",
            "invalid query: the query is already ordered by key; a query has one order", 1, 20, length: 13),
        ErrorCase(
            "get /a orderBy child a.b",
            "invalid path \"a.b\": segment \"a.b\": a key must not contain \".\"", 1, 22, length: 3),
        ErrorCase(
            "get /a orderBy child .info",
            "invalid query: orderByChild cannot order by \".info\"; use orderByKey, orderByValue or orderByPriority", 1, 8,
            length: 19),
        ErrorCase(
            "get /a orderBy child /",
            "invalid query: orderByChild needs a child path", 1, 8, length: 15),
        ErrorCase(
            "get /a orderBy key startAt 5",
            "invalid query: when ordering by key, startAt, startAfter, endAt, endBefore and equalTo take a string key", 1, 28),
        ErrorCase(
            "get /a orderBy key startAt 'a' b",
            "invalid query: when ordering by key, startAt, startAfter, endAt, endBefore and equalTo take one argument", 1, 32),
        ErrorCase(
            "get /a startAt 5 orderBy key",
            "invalid query: when ordering by key, startAt, startAfter, endAt, endBefore and equalTo take a string key", 1, 18,
            length: 11),
        ErrorCase(
            "get /a orderBy priority endAt true",
            "invalid query: when ordering by priority, the bound must be a valid priority (null, a number or a string)", 1, 31,
            length: 4),
        ErrorCase(
            "get /a startAt 1 startAfter 2",
            "invalid query: startAfter: the start is already set (by startAt, startAfter or equalTo)", 1, 18, length: 12),
        ErrorCase(
            "get /a endAt 1 equalTo 2",
            "invalid query: equalTo cannot be combined with startAt, startAfter, endAt or endBefore", 1, 16, length: 9),
        ErrorCase("get /a startAt {a: 1}", "'startAt' needs a number, a string, true, false or null, found '{'", 1, 16, length: 6),
        ErrorCase("get /a equalTo now", "'equalTo' needs a number, a string, true, false or null, found 'now'", 1, 16, length: 3),
        ErrorCase("get /a startAt bob", "expected a value, found 'bob' (quote text: 'bob')", 1, 16, length: 3),
        ErrorCase("get /a endAt", "expected a value, found the end of the line", 1, 13),
        ErrorCase("get /a startAt 5 a.b", "invalid key \"a.b\": a key must not contain \".\"", 1, 18, length: 3),
        ErrorCase("get /a\n  orderBy key\n  orderBy value", "invalid query: the query is already ordered by key; a query has one order", 3, 3, length: 13),
    ]

    @Test(arguments: errors) func errorsPointAtTheOffendingWord(_ error: ErrorCase) {
        error.check()
    }

    @Test func renderedErrorsHaveACaret() {
        let source = "get /scores limitToFirst 0"
        #expect(failure(source)?.rendered(source: source) == """
            error: 'limitToFirst' needs a positive integer, found '0'
              get /scores limitToFirst 0
                                       ^
            """)
        let twice = "get /s orderBy key orderBy value"
        #expect(failure(twice)?.rendered(source: twice) == """
            error: invalid query: the query is already ordered by key; a query has one order
              get /s orderBy key orderBy value
                                 ^^^^^^^^^^^^^
            """)
    }
}
