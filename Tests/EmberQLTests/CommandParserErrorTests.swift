import EmberCore
import Testing

@testable import EmberQL

@Suite struct CommandParserErrorTests {
    static let errors: [ErrorCase] = [
        ErrorCase("{", "expected a command, found '{'", 1, 1),
        ErrorCase("'get' /a", "expected a command, found string \"get\"", 1, 1, length: 5),
        ErrorCase("set", "expected a path after 'set', found the end of the line", 1, 4),
        ErrorCase("SET   ", "expected a path after 'SET', found the end of the line", 1, 4),
        ErrorCase("set {a: 1}", "expected a path after 'set', found '{'", 1, 5),
        ErrorCase("set /a", "expected a value, found the end of the line", 1, 7),
        ErrorCase("set /a alice", "expected a value, found 'alice' (quote text: 'alice')", 1, 8, length: 5),
        ErrorCase("set /a 'abc", "unterminated string", 1, 8),
        ErrorCase("set /a {a 1}", "expected ':' after key 'a', found '1'", 1, 11),
        ErrorCase("set /a {a: 1,,}", "expected a key or '}', found ','", 1, 14),
        ErrorCase("set /a [1,,2]", "expected a value, found ','", 1, 11),
        ErrorCase("set /a {a: 1", "unterminated object", 1, 8),
        ErrorCase("set /a 1 2", "unexpected '2' after the command", 1, 10),
        ErrorCase("set /a {a: 1}}", "unexpected '}' after the command", 1, 14),
        ErrorCase("set /a 1 priority true", "a priority is a number, a string or null, found 'true'", 1, 19, length: 4),
        ErrorCase("set /a 1 priority {a: 1}", "a priority is a number, a string or null, found '{'", 1, 19),
        ErrorCase("set /a 1 priority", "expected a value, found the end of the line", 1, 18),
        ErrorCase("set /a {\n  a: 1,\n  b: nope\n}", "expected a value, found 'nope' (quote text: 'nope')", 3, 6, length: 4),
        ErrorCase("update /a 5", "update needs an object ({key: value, ...}), found '5'", 1, 11),
        ErrorCase("update /a [1]", "update needs an object ({key: value, ...}), found '['", 1, 11),
        ErrorCase("update", "expected a path after 'update', found the end of the line", 1, 7),
        ErrorCase("push /a 1 2", "unexpected '2' after the command", 1, 11),
        ErrorCase("remove", "expected a path after 'remove', found the end of the line", 1, 7),
        ErrorCase("rm -y", "expected a path after '-y', found the end of the line", 1, 6),
        ErrorCase("rm /a -y", "unexpected '-y' after the command", 1, 7, length: 2),
        ErrorCase("increment /a x", "'increment' needs a number, found 'x'", 1, 14),
        ErrorCase("increment /a '1'", "'increment' needs a number, found string \"1\"", 1, 14, length: 3),
        ErrorCase("increment /a 1 2", "unexpected '2' after the command", 1, 16),
        ErrorCase("transaction /a", "expected a Lua function after the path, found the end of the line", 1, 15),
        ErrorCase("transaction", "expected a path after 'transaction', found the end of the line", 1, 12),
        ErrorCase("priority /a", "expected a value, found the end of the line", 1, 12),
        ErrorCase("priority /a [1]", "a priority is a number, a string or null, found '['", 1, 13),
        ErrorCase("export /a b c", "unexpected 'c' after the command", 1, 13),
        ErrorCase("import /a", "expected a file after the path, found the end of the line", 1, 10),
        ErrorCase("import", "expected a path after 'import', found the end of the line", 1, 7),
        ErrorCase("unwatch", "expected a watch number or all, found the end of the line", 1, 8),
        ErrorCase("unwatch x", "expected a watch number or all, found 'x'", 1, 9),
        ErrorCase("unwatch -1", "expected a watch number or all, found '-1'", 1, 9, length: 2),
        ErrorCase("unwatch 1 2", "unexpected '2' after the command", 1, 11),
        ErrorCase("watches now", "unexpected 'now' after the command", 1, 9, length: 3),
        ErrorCase("keepsynced /a maybe", "expected on or off, found 'maybe'", 1, 15, length: 5),
        ErrorCase("keepsynced /a", "expected on or off, found the end of the line", 1, 14),
        ErrorCase("keepsynced", "expected a path after 'keepsynced', found the end of the line", 1, 11),
        ErrorCase("ondisconnect /a foo", "expected set, update, remove or cancel, found 'foo'", 1, 17, length: 3),
        ErrorCase("ondisconnect /a", "expected set, update, remove or cancel, found the end of the line", 1, 16),
        ErrorCase("ondisconnect /a update 1", "ondisconnect update needs an object ({key: value, ...}), found '1'", 1, 24),
        ErrorCase("ondisconnect /a remove now", "unexpected 'now' after the command", 1, 24, length: 3),
        ErrorCase("offline x", "unexpected 'x' after the command", 1, 9),
        ErrorCase("pwd x", "unexpected 'x' after the command", 1, 5),
        ErrorCase("cd a b", "unexpected 'b' after the command", 1, 6),
        ErrorCase("client", "expected a client name after 'client', found the end of the line", 1, 7),
        ErrorCase("client a b", "unexpected 'b' after the client name (client NAME [auth {...}])", 1, 10),
        ErrorCase("as", "expected a client name after 'as', found the end of the line", 1, 3),
        ErrorCase("as bob", "expected a command after the client name, found the end of the line", 1, 7),
        ErrorCase("as bob {", "expected a command after the client name, found '{'", 1, 8),
        ErrorCase("as a as b x", "'as' cannot be nested: it runs one command as one client", 1, 6, length: 2),
        ErrorCase("as a set /x", "expected a value, found the end of the line", 1, 12),
        ErrorCase("server", "expected clock, latency or timeout after 'server', found the end of the line", 1, 7),
        ErrorCase("sleep -1", "'sleep' must be between 0 and 86400000 milliseconds (1 day), not -1", 1, 7, length: 2),
        ErrorCase("server timeout 0", "'timeout' must be between 1 and 86400000 milliseconds (1 day), not 0", 1, 16),
        ErrorCase("server foo", "expected clock, latency or timeout after 'server', found 'foo'", 1, 8, length: 3),
        ErrorCase("server clock 5", "expected skew after 'clock', found '5'", 1, 14),
        ErrorCase("server clock skew", "'skew' needs an integer number of milliseconds, found the end of the line", 1, 18),
        ErrorCase("server clock skew 1.5", "'skew' needs an integer number of milliseconds, found '1.5'", 1, 19, length: 3),
        ErrorCase("server latency -1", "'latency' must be between 0 and 3600000 milliseconds (1 hour), not -1", 1, 16, length: 2),
        ErrorCase("server latency 5 6", "unexpected '6' after the command", 1, 18),
        ErrorCase("run", "expected a file after 'run', found the end of the line", 1, 4),
        ErrorCase("help set get", "unexpected 'get' after the command", 1, 10, length: 3),
        ErrorCase("timing maybe", "expected on or off, found 'maybe'", 1, 8, length: 5),
        ErrorCase("output fancy", "expected pretty, json or table, found 'fancy'", 1, 8, length: 5),
        ErrorCase("output json x", "unexpected 'x' after the command", 1, 13),
        ErrorCase("tree /a depth -1", "'depth' needs a non-negative integer, found '-1'", 1, 15, length: 2),
        ErrorCase("tree /a depth", "'depth' needs a non-negative integer, found the end of the line", 1, 14),
        ErrorCase("tree /a deep 2", "unexpected 'deep' after the command", 1, 9, length: 4),
        ErrorCase("tree /a depth 2 3", "unexpected '3' after the command", 1, 17),
        ErrorCase("set /a \"\\q\"", "invalid escape '\\q' in a string", 1, 9, length: 2),
        ErrorCase("set /a NaN", "expected a value, found 'NaN' (numbers must be finite)", 1, 8, length: 3),
        ErrorCase("set /a " + String(repeating: "[", count: 600), "values nest deeper than 512 levels", 1, 520),
    ]

    @Test(arguments: errors) func errorsSayWhatWasExpectedAndWhatWasFound(_ error: ErrorCase) {
        error.check()
    }

    /// Issue 18, item 8: `server clock skew 9223372036854775807` was accepted and the server's
    /// clock overflowed (a trap) at the next write; a skew of -9.2e18 gave negative timestamps.
    @Test func serverClockSkewBeyondTenYearsIsRefused() throws {
        let range = "'skew' must be between -315360000000 and 315360000000 milliseconds (10 years either way)"
        for value in ["9223372036854775807", "-9200000000000000000", "315360000001", "-315360000001", "99999999999999999999"] {
            #expect(failure("server clock skew \(value)")?.message == "\(range), not \(value)")
        }
        #expect(try parsed("server clock skew 315360000000") == .serverClockSkew(315_360_000_000))
        #expect(try parsed("server clock skew -315360000000") == .serverClockSkew(-315_360_000_000))
    }

    /// Issue 18, item 8: `server latency 9223372036854775807` overflowed the arrival time (a trap).
    @Test func serverLatencyBeyondAnHourIsRefused() throws {
        for value in ["9223372036854775807", "3600001"] {
            #expect(failure("server latency \(value)")?.message == "'latency' must be between 0 and 3600000 milliseconds (1 hour), not \(value)")
        }
        #expect(try parsed("server latency 3600000") == .serverLatency(3_600_000))
    }

    /// The same overflow behind `server timeout` (at the next silent drop) and `sleep`.
    @Test func serverTimeoutAndSleepBeyondADayAreRefused() throws {
        #expect(failure("server timeout 9223372036854775807")?.message
            == "'timeout' must be between 1 and 86400000 milliseconds (1 day), not 9223372036854775807")
        #expect(failure("sleep 86400001")?.message == "'sleep' must be between 0 and 86400000 milliseconds (1 day), not 86400001")
        #expect(failure("sleep 1e3")?.message == "'sleep' needs an integer number of milliseconds, found '1e3'")
        #expect(try parsed("sleep 86400000") == .sleep(86_400_000))
        #expect(try parsed("server timeout 86400000") == .serverTimeout(86_400_000))
    }

    @Test func renderedErrorsPointAtTheWord() {
        let source = "set /a {name: alice}"
        #expect(failure(source)?.rendered(source: source) == """
            error: expected a value, found 'alice' (quote text: 'alice')
              set /a {name: alice}
                            ^^^^^
            """)
        let multiLine = "set /a {\n  a: 1\n  b: 2\n}"
        #expect(failure(multiLine)?.rendered(source: multiLine) == """
            error: expected ',' or '}' after the value of 'a', found 'b'
                b: 2
                ^
            """)
        let end = "keepsynced /a"
        #expect(failure(end)?.rendered(source: end) == """
            error: expected on or off, found the end of the line
              keepsynced /a
                           ^
            """)
        #expect(failure(end)?.description == "expected on or off, found the end of the line at 1:14")
    }

    @Test func nestedCommandErrorsArePlacedInTheWholeInput() {
        let error = failure("as bob get /a limitToFirst x")
        #expect(error?.message == "'limitToFirst' needs a positive integer, found 'x'")
        #expect(error?.position == at(28))
    }
}
