import EmberTestSupport
import Foundation
import Testing

/// Issue 37, item 22: small things the shell said wrongly or not at all, run as users run it.
@Suite struct ShellMessagesTests {
    private func ember(_ arguments: [String]) throws -> ChildProcess.Result {
        EmberProcess.run(["--no-rc", "--memory", "-q"] + arguments)
    }

    @Test("words from other query languages get a did-you-mean")
    func modifierSynonyms() throws {
        for (typed, meant) in [("gte", "startAt"), ("lt", "endBefore"), ("limit", "limitToFirst"), ("orderByChild", "orderBy child")] {
            let result = try ember(["-c", "ls /a orderBy value \(typed) 5"])
            #expect(result.status == 1)
            #expect(result.error.contains("unknown modifier '\(typed)' (did you mean \(meant)? expected"), "\(result.error)")
        }
    }

    @Test("a transaction given an expression says it takes a function, with an example")
    func transactionNeedsAFunction() throws {
        let result = try ember(["-c", "transaction /c v + 1"])
        #expect(result.status == 1)
        #expect(result.error.contains("transaction PATH FUNCTION takes a Lua function of the current value (nil when there is none), "
            + "e.g. transaction /c function(v) return (v or 0) + 1 end"), "\(result.error)")
    }

    @Test("push without a value says it wrote nothing")
    func pushWithoutAValue() throws {
        let result = try ember(["-c", "push /a", "-c", "get /a"])
        #expect(result.status == 0)
        #expect(result.output.contains(" (a new key under /a; nothing written: set /a/"), "\(result.output)")
        #expect(result.output.hasSuffix("null\n"), "\(result.output)")
    }

    @Test("an invalid key in a path is invalid_path in JSON, as docs/ERRORS.md says")
    func invalidPathCode() throws {
        let result = try ember(["--json", "-c", "set /a.b 1"])
        #expect(result.status == 1)
        #expect(result.error.contains(#""code":"invalid_path""#), "\(result.error)")
    }

    @Test("ember serve names the rules file in a compile error, without usage text")
    func serveRulesError() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).rules.json")
        try #"{"rules": {".read": "auth.x ==="}}"#.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = EmberProcess.run(["serve", "--memory", "--port", "0", "--rules", file.path])
        #expect(result.status == 1)
        #expect(result.error == "ember serve: the rules do not compile: \(file.path):1:32: expected a value, found the end of the rule (at rules/.read)\n")
    }
}
