import EmberCore
import EmberTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `import` on a database directory streams the file into the store (Shell+Files.swift,
/// ExportFile.swift): run as a user runs it, with the real binary, and read back by another
/// process exactly as the file says.
@Suite struct StreamingImportTests {
    /// A document of `users` users with nested profiles, priorities, arrays, a leaf written as
    /// `.value`, and names out of order (one repeated) on its large object: about 400 bytes a user.
    static func document(users: Int, badKeyAt bad: Int? = nil) -> String {
        var members: [String] = []
        for index in 0..<users {
            let key = index == bad ? "u.\(index)" : "u\(String(format: "%06d", index))"
            members.append(
                #""\#(key)":{".priority":\#(index % 7),"name":"User \#(index) é \u00e9","score":\#(index * 37 % 1000),"#
                    + #""tags":["a","b",\#(index)],"ratio":\#(Double(index) / 8),"flag":{".value":\#(index % 2 == 0),".priority":"p"},"#
                    + #""profile":{"bio":"\#(String(repeating: "lorem ipsum ", count: 20))","nothing":null,"empty":{}}}"#)
        }
        // Out of order after the users: "a" repeated, the last wins.
        members.append(#""a":{"first":1}"#)
        members.append(#""b":2"#)
        members.append(#""a":{"second":2}"#)
        return "{" + members.joined(separator: ",") + #","z":[null,1,{"k":"v"}],".priority":3}"#
    }

    private func directory() throws -> String {
        try TemporaryDirectory.make("ember-import").path
    }

    /// `/x` read back in the export format by another process.
    private func exported(_ database: String, _ path: String, into file: String) throws -> Node {
        let result = EmberProcess.run(["--db", database, "-q", "-c", "export \(path) \(file)"])
        try #require(result.status == 0, "\(result.error)")
        return try Node(jsonText: String(contentsOfFile: file, encoding: .utf8))
    }

    @Test("a large import is streamed into the store and reads back exactly; the data beside it stays, a leaf above it goes")
    func readsBackExactly() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/import.json"
        let text = Self.document(users: 5_000)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let database = directory + "/db"
        let setUp = EmberProcess.run(["--db", database, "-q", "-c", "set /keep {a: 1}", "-c", "set /x {old: true}", "-c", "set /leaf 5"])
        try #require(setUp.status == 0, "\(setUp.error)")

        let imported = EmberProcess.run(["--db", database, "-q", "-c", "import /x \(file)", "-c", "import /leaf/below \(file)"])
        #expect(imported.status == 0, "\(imported.error)")
        #expect(imported.output.contains("streamed into the store"), "\(imported.output)")

        let expected = try Node(jsonText: text)
        #expect(try exported(database, "/x", into: directory + "/x.json") == expected)
        #expect(try exported(database, "/leaf", into: directory + "/leaf.json") == Node(children: [(ChildKey(unchecked: "below"), expected)]))
        #expect(try exported(database, "/keep", into: directory + "/keep.json") == Node(jsonText: #"{"a":1}"#))
        // What is on disk opens whole, row by row, with no row left out.
        let whole = EmberProcess.run(["--db", database, "-q", "-c", "get / limitToFirst 1"])
        #expect(whole.status == 0 && !whole.error.contains("warning"), "\(whole.error)")
    }

    @Test("the index the rules declare is built by the import; a later process answers the indexed query from it, as the whole location would")
    func indexedQueryAfterImport() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/import.json"
        let text = Self.document(users: 3_000)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let rules = directory + "/rules.json"
        try #"{"rules":{".read":true,".write":true,"x":{".indexOn":["score"]}}}"#.write(toFile: rules, atomically: true, encoding: .utf8)
        let database = directory + "/db"
        let imported = EmberProcess.run(["--db", database, "-q", "--rules", rules, "-c", "import /x \(file)"])
        try #require(imported.status == 0, "\(imported.error)")
        // Scores are index * 37 % 1000: 999 for 27, 1027, 2027; 998 for 54, 1054, 2054.
        let top = EmberProcess.run(["--db", database, "-q", "--json", "-c", "get /x orderBy child score limitToLast 4"])
        try #require(top.status == 0, "\(top.error)")
        let answer = try Node(jsonText: top.output)
        #expect(answer.children.map(\.key.name) == ["u000027", "u001027", "u002027", "u002054"])
        #expect(answer.child("u000027").jsonString() == (try Node(jsonText: text)).child("u000027").jsonString())
        // Then a write moves a user to the top, and the next process sees it there.
        let write = EmberProcess.run(["--db", database, "-q", "-c", "set /x/u000001/score 5000"])
        try #require(write.status == 0, "\(write.error)")
        let again = EmberProcess.run(["--db", database, "-q", "--json", "-c", "get /x orderBy child score limitToLast 2"])
        #expect(try Node(jsonText: again.output).children.map(\.key.name) == ["u000001", "u002027"])
    }

    @Test("export from a database directory streams the rows into the file: the same data, priorities and leaves written as .value included")
    func exportStreams() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/import.json"
        let text = Self.document(users: 3_000)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let database = directory + "/db"
        let imported = EmberProcess.run(["--db", database, "-q", "-c", "import /x \(file)", "-c", "set /leaf 5"])
        try #require(imported.status == 0, "\(imported.error)")
        let exported = EmberProcess.run([
            "--db", database, "-q", "-c", "export /x \(directory)/x.json", "-c", "export /x/u000003 \(directory)/one.json",
            "-c", "export /leaf/below \(directory)/below.json", "-c", "export /missing \(directory)/missing.json",
            "-c", "export /x/u000003/flag \(directory)/flag.json",
        ])
        #expect(exported.status == 0, "\(exported.error)")
        let expected = try Node(jsonText: text)
        #expect(try Node(jsonText: String(contentsOfFile: directory + "/x.json", encoding: .utf8)) == expected)
        let one = try String(contentsOfFile: directory + "/one.json", encoding: .utf8)
        // Indented as every export is, the object's priority after its children.
        #expect(one.hasPrefix("{\n  \"flag\": {\n    \".value\": false,\n    \".priority\": \"p\"\n  },\n"), "\(one)")
        #expect(one.hasSuffix("  \".priority\": 3\n}\n"), "\(one)")
        #expect(try Node(jsonText: one) == expected.child(at: "u000003"))
        #expect(try String(contentsOfFile: directory + "/below.json", encoding: .utf8) == "null\n")
        #expect(try String(contentsOfFile: directory + "/missing.json", encoding: .utf8) == "null\n")
        #expect(try Node(jsonText: String(contentsOfFile: directory + "/flag.json", encoding: .utf8)) == expected.child(at: "u000003/flag"))
    }

    @Test("data a write would refuse, in the middle of a large file, imports nothing: the error names it and the old data stays")
    func badDataImportsNothing() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/import.json"
        try Self.document(users: 5_000, badKeyAt: 4_000).write(toFile: file, atomically: true, encoding: .utf8)
        let database = directory + "/db"
        #expect(EmberProcess.run(["--db", database, "-q", "-c", "set /x {old: true}"]).status == 0)
        let imported = EmberProcess.run(["--db", database, "-q", "-c", "import /x \(file)"])
        #expect(imported.status == 1)
        #expect(imported.error.contains("u.4000") && imported.error.contains("import.json"), "\(imported.error)")
        #expect(try exported(database, "/x", into: directory + "/x.json") == Node(jsonText: #"{"old":true}"#))

        let broken = directory + "/broken.json"
        let text = Self.document(users: 5_000)
        try String(text.prefix(text.count / 2)).write(toFile: broken, atomically: true, encoding: .utf8)
        let cut = EmberProcess.run(["--db", database, "-q", "-c", "import /x \(broken)"])
        #expect(cut.status == 1)
        #expect(cut.error.contains("not JSON at byte"), "\(cut.error)")
        #expect(try exported(database, "/x", into: directory + "/x.json") == Node(jsonText: #"{"old":true}"#))
    }

    @Test("at a terminal: a progress bar while it streams, and a watch on a location inside hears the new data")
    func progressAndWatchers() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/import.json"
        try Self.document(users: 20_000).write(toFile: file, atomically: true, encoding: .utf8)
        let environment = [
            "HOME": directory, "XDG_STATE_HOME": directory + "/state", "XDG_CONFIG_HOME": directory + "/config",
            "TERM": "xterm", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "NO_COLOR": "1",
        ]
        let session = try TerminalSession(
            executable: EmberProcess.executable.path, arguments: ["--db", directory + "/db", "-q"], environment: environment)
        #expect(session.waitFor("main:/> "), "no prompt: \(session.screen)")
        session.type("set /x/u000007/name 'before'\r")
        #expect(session.waitFor("ok"))
        session.type("watch /x/u000007/name value\r")
        #expect(session.waitFor(#""before""#), "\(session.screen)")
        session.type("import /x \(file)\r")
        #expect(session.waitFor("streamed into the store", timeout: 60), "\(session.screen)")
        #expect(session.screen.contains("importing /x: ["), "no progress bar: \(session.screen)")
        #expect(session.waitFor(#""User 7 é é""#), "the watch did not hear the import: \(session.screen)")
        // Ctrl-D at the prompt (typed while a command still runs, the terminal's driver takes it).
        #expect(session.waitUntil { $0.hasSuffix("> ") }, "no prompt at the end: \(session.screen)")
        usleep(100_000)
        session.type("\u{4}")
        #expect(session.waitForExit(timeout: 30) == 0, "\(session.screen)")
    }
}
