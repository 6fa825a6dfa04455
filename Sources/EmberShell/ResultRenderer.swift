import EmberClient
import EmberCore
import EmberSync
import EmberLua
import EmberQL

/// Prints command results and watch events in an output mode: the one place that decides
/// between pretty text, tables and JSON.
///
/// ```swift
/// let renderer = ResultRenderer(mode: .json, style: TextStyle(colored: false))
/// renderer.render(.done("main is offline"))   // "{\"ok\":true}\n"
/// ```
public struct ResultRenderer {
    /// The output mode.
    public var mode: OutputMode
    /// The styles of pretty output.
    public var style: TextStyle

    public init(mode: OutputMode, style: TextStyle) {
        self.mode = mode
        self.style = style
    }

    private var formatter: ValueFormatter { ValueFormatter(style: style) }

    /// The text that shows `result`, ending with a newline (`nil`: nothing to print).
    /// - Complexity: O(n) in the size of what is shown.
    public func render(_ result: CommandResult) -> String? {
        switch (mode, result) {
        case (.json, .control): return nil
        case (_, .control(let text)): return text.isEmpty ? nil : text
        case (.json, _): return result.json.map { $0.serialized() + "\n" }
        default: return pretty(result).map { $0 + "\n" }
        }
    }

    /// `result` for people (pretty and table modes), without the final newline.
    private func pretty(_ result: CommandResult) -> String? {
        switch result {
        case .nothing, .control:
            return nil
        case .snapshot(let snapshot):
            if mode == .table && snapshot.hasChildren {
                return formatter.table(snapshot.children.map { ($0.key ?? "", $0.value) })
            }
            return formatter.pretty(snapshot.value)
        case .value(let value):
            return formatter.pretty(value)
        case .children(let path, let children, let exists):
            // Said, not left blank: nothing there, or a value without children.
            if children.isEmpty {
                return style.dim(exists ? "(\(path) holds a value, no children: get \(path) shows it)" : "(nothing at \(path))")
            }
            if mode == .table { return formatter.table(children) }
            let width = children.map(\.key.count).max() ?? 0
            return children.map { child in
                style.key(child.key) + String(repeating: " ", count: width - child.key.count + 2) + formatter.summary(child.value)
            }.joined(separator: "\n")
        case .tree(let snapshot, let depth):
            return formatter.tree(snapshot.node, name: snapshot.path.description, depth: depth)
        case .write(let report):
            switch report.status {
            case .acknowledged: return report.detail ?? style.ok("ok")
            case .queued(let state, let keeping):
                return (report.detail.map { $0 + " " } ?? "")
                    + style.warning(
                        "queued (\(state)): sent when the client reconnects"
                            + (keeping == .inMemory ? "; kept in memory only: lost if ember exits before then" : ""))
            case .held(let reason):
                return (report.detail.map { $0 + " " } ?? "")
                    + style.warning("held (\(reason)): sent once the client has a new token (auth {...})")
            }
        case .transaction(.queued):
            return style.warning("queued (offline): the transaction runs again when the client reconnects")
        case .transaction(.held(_, let reason)):
            return style.warning("held (\(reason)): the transaction runs once the client has a new token (auth {...})")
        case .transaction(.finished(let committed, let value, _)):
            return (committed ? style.ok("committed") : style.warning("aborted")) + ": " + formatter.compact(value)
        case .notRemoved:
            return "not removed"
        case .watching(let id, let path, let query, let events):
            let described = events == Shell.defaultWatchEvents ? "child events" : events.map(\.rawValue).joined(separator: ", ")
            return style.dim("[\(id)]") + " watching \(path)\(query.isEmpty ? "" : " " + query) (\(described))"
        case .location(let path, let shown):
            return shown ? path.description : nil
        case .done(let message):
            return message
        case .report(let text, _):
            return text
        case .values(let values):
            guard !values.isEmpty else { return nil }
            if values.count == 1, case .json(let value) = values[0], value.isContainer { return formatter.pretty(value) }
            return values.map(shown).joined(separator: "\t")
        }
    }

    /// A Lua result as the Lua REPL shows it: strings raw, other values as compact JSON.
    func shown(_ value: LuaReturnValue) -> String {
        switch value {
        case .nil: "nil"
        case .json(.string(let text)): text
        case .json(let json): formatter.compact(json)
        case .text(let text): text
        }
    }

    /// The line that shows one event of watch `id`, ending with a newline:
    /// `[2] child_added /scores/stego after bronto: 5`, or one JSON object.
    public func event(_ event: ListenerEvent, watch id: Int) -> String {
        switch event {
        case .data(let type, let snapshot, let previous):
            let client = snapshot.database?.name.rawValue
            let origin = snapshot.origin ?? .server
            if mode == .json {
                var fields: [(key: String, value: JSONValue)] = [
                    ("watch", .int(Int64(id))), ("client", client.map(JSONValue.string) ?? .null), ("origin", .string(origin.rawValue)),
                    ("event", .string(type.rawValue)), ("path", .string(snapshot.path.description)),
                ]
                if type != .value {
                    fields.append(("key", .string(snapshot.key ?? "")))
                    fields.append(("prev", previous.map(JSONValue.string) ?? .null))
                }
                fields.append(("value", snapshot.value))
                return JSONValue.object(fields).serialized() + "\n"
            }
            let position = type == .value || type == .childRemoved ? "" : previous.map { " after \($0)" } ?? ""
            // Whose event and why: an optimistic write (local), the server's data, a refused
            // write taken back (rollback), the persisted cache.
            let label = [client, origin.rawValue].compactMap { $0 }.joined(separator: ", ")
            let why = origin == .rollback ? style.error(label) : label
            return style.dim("[\(id)]") + " " + style.bold(type.rawValue) + " \(snapshot.path)\(position): "
                + formatter.compact(snapshot.value) + style.dim("  (") + why + style.dim(")") + "\n"
        case .cancelled(let error):
            if mode == .json {
                return JSONValue.object([
                    ("watch", .int(Int64(id))), ("event", .string("cancelled")),
                    ("error", .object([("code", .string(error.code)), ("message", .string(error.message))])),
                ]).serialized() + "\n"
            }
            return style.dim("[\(id)]") + " " + style.error("cancelled") + ": \(error.message)\n"
        }
    }
}
