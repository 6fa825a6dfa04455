import EmberClient
import EmberCore
import EmberLua

/// What a shell command produced: a value, not printed text. One renderer
/// (``ResultRenderer``) prints it in the session's output mode (pretty, table or `--json`), and
/// `ember.exec` hands its JSON form to Lua as data.
public enum CommandResult {
    /// Nothing to show (`sleep`, `exit`, `lua` alone).
    case nothing
    /// Data read from a query (`get`): pretty JSON, a table of its children in query order,
    /// or JSON.
    case snapshot(DataSnapshot)
    /// A value (`export` without a file): pretty JSON, or JSON.
    case value(JSONValue)
    /// A location's children in query order (`ls`); `exists` tells an empty location from a
    /// value without children.
    case children(of: Path, [(key: String, value: JSONValue)], exists: Bool)
    /// A location's data as a tree (`tree`), `depth` levels deep (all when `nil`); JSON: its
    /// value.
    case tree(DataSnapshot, depth: Int?)
    /// How a write ended: acknowledged or queued.
    case write(WriteReport)
    /// How a transaction ended.
    case transaction(TransactionReport)
    /// A removal the user declined.
    case notRemoved
    /// A watch started: its number, location, query modifiers as written and events.
    case watching(id: Int, path: Path, query: String, events: [EventType])
    /// The current location (`pwd`; `cd`, which shows it only in JSON).
    case location(Path, shown: Bool)
    /// Something done, said in words; JSON: `{"ok": true}`.
    case done(String)
    /// A report for people (`status`, `clients`, `help`, `history`...) and the same facts as
    /// JSON. `text` is `nil` when people are shown nothing.
    case report(text: String?, json: JSONValue)
    /// What a Lua chunk, script or plugin command returned.
    case values([LuaReturnValue])
    /// Terminal control (`clear`): written as is at a terminal, nothing in JSON.
    case control(String)

    /// The result as JSON: what `--json` prints and `ember.exec` returns (`nil`: nothing).
    public var json: JSONValue? {
        switch self {
        case .nothing, .control: nil
        case .snapshot(let snapshot), .tree(let snapshot, _): snapshot.value
        case .value(let value): value
        case .children(_, let children, _):
            .array(children.map { .object([("key", .string($0.key)), ("value", $0.value)]) })
        case .write(let report): report.json
        case .transaction(let report): report.json
        case .notRemoved: .object([("ok", .bool(false)), ("cancelled", .bool(true))])
        case .watching(let id, _, _, _): .object([("watch", .int(Int64(id)))])
        case .location(let path, _): .object([("path", .string(path.description))])
        case .done: .object([("ok", .bool(true))])
        case .report(_, let json): json
        case .values(let values): values.isEmpty ? nil : .array(values.map(\.json))
        }
    }
}

extension LuaReturnValue {
    /// The value as JSON (`nil` as `null`, text as a string).
    var json: JSONValue {
        switch self {
        case .nil: .null
        case .json(let json): json
        case .text(let text): .string(text)
        }
    }
}
