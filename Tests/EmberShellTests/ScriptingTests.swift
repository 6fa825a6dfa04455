import EmberTestSupport
import Foundation
import Testing

/// Issue 37, item 20: what scripts need of the command line, run as users run `ember`.
@Suite struct ScriptingTests {
    private func ember(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess.Result {
        EmberProcess.run(["--no-rc"] + arguments, environment: environment)
    }

    @Test("a script chooses its exit status with ember.exit; a pcall does not keep the run going past the chunk")
    func exitStatus() throws {
        let three = try ember(["--memory", "-q", "-e", "print('a') ember.exit(3) print('b')", "-c", "get /"])
        #expect(three.status == 3)
        #expect(three.output == "a\n")
        #expect(three.error == "")
        let caught = try ember(["--memory", "-q", "-e", "pcall(ember.exit, 4) print('after')", "-c", "set /x 1"])
        #expect(caught.status == 4)
        #expect(caught.output == "after\n")
        let flags = try ember(["--memory", "-q", "-e", "ember.exit(false)"])
        #expect(flags.status == 1)
        #expect(flags.error == "")
        let zero = try ember(["--memory", "-q", "-e", "ember.exit()", "-c", "get /missing-command-never-runs("])
        #expect(zero.status == 0)
        let bad = try ember(["--memory", "-q", "-e", "ember.exit(300)"])
        #expect(bad.status == 1)
        #expect(bad.error.contains("an exit status goes from 0 to 255, not 300"), "\(bad.error)")
        // In a script file too.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("exit-\(UUID().uuidString).lua")
        try "db:ref('n'):set(1)\nember.exit(7)\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try ember(["--memory", "-q", file.path]).status == 7)
    }

    @Test("-e runs a call as a statement: nothing of what it returns is printed; an expression prints its value")
    func evalPrintsOnlyExpressions() throws {
        let result = try ember(["--memory", "-q", "-e", "db:ref('y'):set(1)", "-e", "1 + 1", "-e", "return db:ref('y'):get():val()"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "2\n1\n")
        let wrong = try ember(["--memory", "-q", "-e", "x = = 1"])
        #expect(wrong.status == 1)
        #expect(wrong.error.contains("unexpected symbol near '='"), "\(wrong.error)")
    }

    @Test("~ in import and export paths is the home directory")
    func tildeInPaths() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ember-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try ember(
            ["--memory", "-q", "-c", "set /a {b: 1}", "-c", "export /a ~/a.json", "-c", "import /c ~/a.json", "-c", "get /c/b"],
            environment: ["HOME": home.path])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("exported /a to \(home.path)/a.json"), "\(result.output)")
        #expect(result.output.hasSuffix("1\n"), "\(result.output)")
        #expect(FileManager.default.fileExists(atPath: home.path + "/a.json"))
    }

    @Test("ember.json encodes and decodes with Lua's conversions, and names a malformed text's fault")
    func json() throws {
        let result = try ember(["--memory", "-q", "-e", """
            print(ember.json.encode({a = 1, b = {1, 2, 'x'}, c = ember.null}))
            local t = ember.json.decode('{"k": [1, 2.5, "s", null, true]}')
            print(t.k[1], t.k[2], t.k[3], t.k[4] == ember.null, t.k[5])
            print(ember.json.encode({x = {y = 1}}, true))
            """])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "{\"a\":1,\"b\":[1,2,\"x\"],\"c\":null}\n1\t2.5\ts\ttrue\ttrue\n{\n  \"x\": {\n    \"y\": 1\n  }\n}\n")
        let bad = try ember(["--memory", "-q", "-e", "ember.json.decode('{bad')"])
        #expect(bad.status == 1)
        #expect(bad.error.contains("ember.json.decode: malformed JSON at line 1, column 2"), "\(bad.error)")
    }
}
