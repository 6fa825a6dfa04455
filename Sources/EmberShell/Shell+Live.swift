import EmberClient
import EmberCore
import EmberEngine
import EmberInstance
import EmberWire
import EmberLua
import EmberQL
import EmberSync

/// The live commands: watch, unwatch, watches, keepsynced.
extension Shell {
    /// The events a watch listens to when none is named: every child event.
    static let defaultWatchEvents: [EventType] = [.childAdded, .childChanged, .childRemoved, .childMoved]

    func watch(_ expression: PathExpression, _ queryExpression: QueryExpression, events: [EventType]) throws(ShellError) {
        let path = try resolve(expression)
        let events = events.isEmpty ? Self.defaultWatchEvents : events
        let id = nextWatchID
        nextWatchID += 1
        if isJSON {
            printJSON(.object([("watch", .int(Int64(id)))]))
        } else {
            let described = events == Self.defaultWatchEvents ? "child events" : events.map(\.rawValue).joined(separator: ", ")
            let query = queryExpression.text.isEmpty ? "" : " " + queryExpression.text
            print(style.dim("[\(id)]") + " watching \(path)\(query) (\(described))")
        }
        let query = makeQuery(path, queryExpression)
        let types = Set(events)
        let client = clientOverride ?? currentClient
        // initial events are delivered while the listen is set up, so the watch exists first
        let handle = query.observe(types) { [weak self] event in
            self?.printEvent(event, watch: id)
        }
        watches[id] = Watch(
            id: id, client: client, path: path, query: queryExpression.text, events: events, handle: handle)
    }

    /// Prints one event of watch `id`: `[2] child_added /scores/stego after bronto: 5`.
    func printEvent(_ event: ListenerEvent, watch id: Int) {
        switch event {
        case .data(let type, let snapshot, let previous):
            if isJSON {
                var fields: [(key: String, value: JSONValue)] = [
                    ("watch", .int(Int64(id))), ("event", .string(type.rawValue)), ("path", .string(snapshot.path.description)),
                ]
                if type != .value {
                    fields.append(("key", .string(snapshot.key ?? "")))
                    fields.append(("prev", previous.map(JSONValue.string) ?? .null))
                }
                fields.append(("value", snapshot.value))
                output.writeEvent(JSONValue.object(fields).serialized() + "\n")
            } else {
                let position = type == .value || type == .childRemoved ? "" : previous.map { " after \($0)" } ?? ""
                let line = style.dim("[\(id)]") + " " + style.bold(type.rawValue) + " \(snapshot.path)\(position): "
                    + formatter.compact(snapshot.value)
                output.writeEvent(line + "\n")
            }
        case .cancelled(let error):
            watches[id] = nil
            if isJSON {
                output.writeEvent(JSONValue.object([
                    ("watch", .int(Int64(id))), ("event", .string("cancelled")),
                    ("error", .object([("code", .string(error.code)), ("message", .string(error.message))])),
                ]).serialized() + "\n")
            } else {
                output.writeEvent(style.dim("[\(id)]") + " " + style.error("cancelled") + ": \(error.message)\n")
            }
        }
    }

    func unwatch(_ target: UnwatchTarget) throws(ShellError) {
        switch target {
        case .all:
            let removed = watches.values.sorted { $0.id < $1.id }
            for watch in removed { stop(watch) }
            printOK(removed.isEmpty ? "no watches" : "removed \(removed.count) \(removed.count == 1 ? "watch" : "watches")")
        case .id(let id):
            guard let watch = watches[id] else {
                throw .command(ErrorCode.unknownWatch, "no watch \(id) (see watches)")
            }
            stop(watch)
            printOK("removed watch \(id)")
        }
    }

    /// Removes a watch's listener.
    func stop(_ watch: Watch) {
        ember.client(watch.client).removeObserver(watch.handle)
        watches[watch.id] = nil
    }

    func listWatches() {
        let all = watches.values.sorted { $0.id < $1.id }
        if isJSON {
            printJSON(.array(all.map { watch in
                .object([
                    ("watch", .int(Int64(watch.id))), ("client", .string(watch.client.rawValue)),
                    ("path", .string(watch.path.description)), ("query", .string(watch.query)),
                    ("events", .array(watch.events.map { .string($0.rawValue) })),
                ])
            }))
            return
        }
        if all.isEmpty { print("no watches"); return }
        for watch in all {
            let query = watch.query.isEmpty ? "" : " " + watch.query
            print(style.dim("[\(watch.id)]") + " \(watch.client) \(watch.path)\(query) " + watch.events.map(\.rawValue).joined(separator: " "))
        }
    }

    func keepSynced(_ expression: PathExpression, _ on: Bool) throws(ShellError) {
        let path = try resolve(expression)
        do {
            try database.reference(path).keepSynced(on)
        } catch {
            throw .database(error, at: expression.position)
        }
        printOK(on ? "keeping \(path) synced" : "no longer keeping \(path) synced")
    }
}
