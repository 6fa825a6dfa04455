import EmberClient
import EmberCore
import EmberSync
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

    func watch(_ expression: PathExpression, _ queryExpression: QueryExpression, events: [EventType]) throws(ShellError) -> CommandResult {
        let path = try resolve(expression)
        let events = events.isEmpty ? Self.defaultWatchEvents : events
        let id = state.nextWatchID
        state.nextWatchID += 1
        let query = makeQuery(path, queryExpression)
        let client = state.clientOverride ?? state.currentClient
        // The initial events come as the listener is added: held until the watch's own line
        // has printed.
        state.holdingWatches.insert(id)
        let handle = query.observe(Set(events)) { [weak self] event in
            self?.printEvent(event, watch: id)
        }
        state.watches[id] = Watch(id: id, client: client, path: path, query: queryExpression.text, events: events, handle: handle)
        return .watching(id: id, path: path, query: queryExpression.text, events: events)
    }

    /// Prints one event of watch `id` as it happens, or holds it while the command that
    /// started the watch has not shown its result.
    func printEvent(_ event: ListenerEvent, watch id: Int) {
        if case .cancelled = event { state.watches[id] = nil }
        if state.tour != nil, case .data(let type, let snapshot, _) = event {
            state.tour?.events.append(.init(watch: id, type: type, path: snapshot.path, origin: snapshot.origin ?? .server))
        }
        let text = renderer.event(event, watch: id)
        if state.holdingWatches.contains(id) {
            state.heldEvents.append(text)
        } else {
            output.writeEvent(text)
        }
    }

    /// Prints the events held for the watches the last command started, in order, and stops
    /// holding.
    ///
    /// Ctrl-C stops the printing between two events (issue 37: a watch on 200,000 children
    /// printed them all through two Ctrl-Cs) and cancels the command that started the watches:
    /// they are removed, as an interrupted command leaves nothing behind, and a note on stderr
    /// says how many events were not printed. The interrupt stays pending, as after any stopped
    /// output.
    func releaseHeldEvents() {
        let started = state.holdingWatches.sorted()
        state.holdingWatches.removeAll()
        let held = state.heldEvents
        state.heldEvents.removeAll()
        for (index, text) in held.enumerated() {
            guard !InterruptSignal.isPending else {
                let removed = started.compactMap { state.watches[$0] }
                for watch in removed { stop(watch) }
                let names = removed.map { "[\($0.id)]" }.joined(separator: ", ")
                let what = removed.isEmpty ? "" : removed.count == 1 ? "; watch \(names) removed" : "; watches \(names) removed"
                output.writeError("\n^C (output stopped: \(held.count - index) of \(held.count) initial events not printed\(what))\n")
                return
            }
            output.writeEvent(text)
        }
    }

    func unwatch(_ target: UnwatchTarget) throws(ShellError) -> CommandResult {
        switch target {
        case .all:
            let removed = state.watches.values.sorted { $0.id < $1.id }
            for watch in removed { stop(watch) }
            return .done(removed.isEmpty ? "no watches" : "removed \(removed.count) \(removed.count == 1 ? "watch" : "watches")")
        case .id(let id):
            guard let watch = state.watches[id] else {
                throw .command(ErrorCode.unknownWatch, "no watch \(id) (see watches)")
            }
            stop(watch)
            return .done("removed watch \(id)")
        }
    }

    /// Removes a watch's listener.
    func stop(_ watch: Watch) {
        ember.client(watch.client).removeObserver(watch.handle)
        state.watches[watch.id] = nil
    }

    func listWatches() -> CommandResult {
        let all = state.watches.values.sorted { $0.id < $1.id }
        let json = JSONValue.array(all.map { watch in
            .object([
                ("watch", .int(Int64(watch.id))), ("client", .string(watch.client.rawValue)),
                ("path", .string(watch.path.description)), ("query", .string(watch.query)),
                ("events", .array(watch.events.map { .string($0.rawValue) })),
            ])
        })
        if all.isEmpty { return .report(text: "no watches", json: json) }
        let lines = all.map { watch in
            let query = watch.query.isEmpty ? "" : " " + watch.query
            return style.dim("[\(watch.id)]") + " \(watch.client) \(watch.path)\(query) " + watch.events.map(\.rawValue).joined(separator: " ")
        }
        return .report(text: lines.joined(separator: "\n"), json: json)
    }

    func keepSynced(_ expression: PathExpression, _ on: Bool) throws(ShellError) -> CommandResult {
        let path = try resolve(expression)
        do {
            try database.reference(path).keepSynced(on)
        } catch {
            throw .database(error, at: expression.position)
        }
        return .done(on ? "keeping \(path) synced" : "no longer keeping \(path) synced")
    }
}
