import EmberClient
import EmberCore
import EmberLua
import EmberQL
@testable import EmberShell
import Testing

/// The one renderer: each kind of result in pretty, table and JSON form.
@Suite("ResultRenderer")
struct ResultRendererTests {
    private let plain = TextStyle(colored: false)

    private func render(_ result: CommandResult, _ mode: OutputMode) -> String? {
        ResultRenderer(mode: mode, style: plain).render(result)
    }

    @Test("children: aligned summaries, a table, JSON key/value pairs, and words for nothing")
    func children() {
        let children: [(key: String, value: JSONValue)] = [("a", .int(1)), ("long", .object([("x", .int(2))]))]
        #expect(render(.children(of: "p", children, exists: true), .pretty) == "a     1\nlong  {\"x\":2}\n")
        #expect(render(.children(of: "p", children, exists: true), .json) == #"[{"key":"a","value":1},{"key":"long","value":{"x":2}}]"# + "\n")
        #expect(render(.children(of: "p", children, exists: true), .table)?.contains("long") == true)
        #expect(render(.children(of: "p", [], exists: false), .pretty) == "(nothing at /p)\n")
        #expect(render(.children(of: "p", [], exists: true), .pretty) == "(/p holds a value, no children: get /p shows it)\n")
        #expect(render(.children(of: "p", [], exists: false), .json) == "[]\n")
    }

    @Test("a write: ok or its detail, queued said in words; JSON ok, queued and the extra fields")
    func writes() {
        #expect(render(.write(WriteReport(.acknowledged)), .pretty) == "ok\n")
        #expect(render(.write(WriteReport(.acknowledged)), .json) == #"{"ok":true}"# + "\n")
        let push = WriteReport(.queued(.offline, keeping: .kept), detail: "-Nk", fields: [("key", .string("-Nk"))])
        #expect(render(.write(push), .pretty) == "-Nk queued (offline): sent when the client reconnects\n")
        #expect(render(.write(push), .json) == #"{"ok":true,"queued":true,"key":"-Nk"}"# + "\n")
        // Issue 37: a queue in memory while the server outlives the process says so.
        let lost = WriteReport(.queued(.disconnected, keeping: .inMemory))
        #expect(render(.write(lost), .pretty)
            == "queued (disconnected): sent when the client reconnects; kept in memory only: lost if ember exits before then\n")
        #expect(render(.write(lost), .json) == #"{"ok":true,"queued":true,"state":"disconnected","inMemory":true}"# + "\n")
    }

    @Test("a transaction: committed or aborted with the value; queued; JSON with the attempts")
    func transactions() {
        #expect(render(.transaction(.finished(committed: true, value: .int(4), attempts: 2)), .pretty) == "committed: 4\n")
        #expect(render(.transaction(.finished(committed: false, value: .null, attempts: 1)), .pretty) == "aborted: null\n")
        #expect(render(.transaction(.finished(committed: true, value: .int(4), attempts: 2)), .json)
            == #"{"committed":true,"value":4,"attempts":2}"# + "\n")
        #expect(render(.transaction(.queued(attempts: 1)), .json) == #"{"committed":false,"queued":true,"attempts":1}"# + "\n")
    }

    @Test("nothing, cd's location and Lua's empty results print nothing; clear writes its control only at a terminal")
    func silent() {
        #expect(render(.nothing, .pretty) == nil)
        #expect(render(.nothing, .json) == nil)
        #expect(render(.location("a", shown: false), .pretty) == nil)
        #expect(render(.location("a", shown: false), .json) == #"{"path":"/a"}"# + "\n")
        #expect(render(.location("a", shown: true), .pretty) == "/a\n")
        #expect(render(.values([]), .json) == nil)
        #expect(render(.control("\u{1B}[H"), .pretty) == "\u{1B}[H")
        #expect(render(.control("\u{1B}[H"), .json) == nil)
    }

    @Test("Lua values: tab-separated as the Lua REPL shows them, one table pretty; JSON one array")
    func values() {
        #expect(render(.values([.json(.int(1)), .json(.string("a")), .nil]), .pretty) == "1\ta\tnil\n")
        #expect(render(.values([.json(.object([("x", .int(1))]))]), .pretty) == "{\n  \"x\": 1\n}\n")
        #expect(render(.values([.json(.int(1)), .nil]), .json) == "[1,null]\n")
    }

    @Test("a watch's line, a done message and a report: words for people, their JSON for machines")
    func reports() {
        #expect(render(.watching(id: 2, path: "s", query: "limit 1", events: [.value]), .pretty) == "[2] watching /s limit 1 (value)\n")
        #expect(render(.watching(id: 2, path: "s", query: "", events: Shell.defaultWatchEvents), .pretty) == "[2] watching /s (child events)\n")
        #expect(render(.watching(id: 2, path: "s", query: "", events: [.value]), .json) == #"{"watch":2}"# + "\n")
        #expect(render(.done("main is online"), .pretty) == "main is online\n")
        #expect(render(.done("main is online"), .table) == "main is online\n")
        #expect(render(.done("main is online"), .json) == #"{"ok":true}"# + "\n")
        #expect(render(.report(text: "timing is on", json: .object([("timing", .bool(true))])), .json) == #"{"timing":true}"# + "\n")
        #expect(render(.notRemoved, .pretty) == "not removed\n")
        #expect(render(.notRemoved, .json) == #"{"ok":false,"cancelled":true}"# + "\n")
    }
}
