import EmberCore
import EmberSync

/// The SDK runners' two event matchers, as the JS and iOS runners implement them
/// (`sync-spec-runner.md` §3.4).
///
/// Both compare type, child key, prevName and data (``sameData(_:_:)``: values and priorities at
/// every level). ``exactMatch(expected:actual:)`` also compares order; ``setMatch(expected:actual:basePath:)``
/// checks the order of listen-path groups and, per listener, the order of event types, but lets
/// events of one group match in any order.
public enum SyncPointSpecMatcher {
    /// Matches the events of a listen or unlisten step: same count, and event *i* is expected
    /// event *i* (type; for child events the key and prevName; data). Paths are not compared.
    /// - Returns: what differs, or `nil` when the events match.
    public static func exactMatch(expected: [SyncPointSpecEvent], actual: [Event]) -> String? {
        if let problem = countProblem(expected: expected.count, actual: actual.count) { return problem }
        for (offset, (want, got)) in zip(expected, actual).enumerated() {
            if let problem = difference(want, got, comparesRemovedPrevName: true) {
                return "event \(offset + 1) differs: \(problem)"
            }
        }
        return nil
    }

    /// Matches the events of every other step.
    ///
    /// The expected events are split into groups of consecutive events with the same listen
    /// path (joined on `basePath`). The actual events must come in groups of the same sizes,
    /// in the same order, each raised for that listen path. Within a group, each listener
    /// (listen path and query parameters) must get its events in the order child_removed,
    /// child_added, child_moved, child_changed, value, and each actual event must match the
    /// first still-unmatched expected event of the group with the same type, key (child events),
    /// prevName (child events other than child_removed) and data.
    /// - Returns: what differs, or `nil` when the events match.
    public static func setMatch(expected: [SyncPointSpecEvent], actual: [Event], basePath: Path) -> String? {
        if let problem = countProblem(expected: expected.count, actual: actual.count) { return problem }
        var start = 0
        while start < expected.count {
            let group = basePath.appending(expected[start].path)
            var end = start + 1
            while end < expected.count && basePath.appending(expected[end].path) == group { end += 1 }
            if let problem = matchGroup(expected[start..<end], actual[start..<end], listenPath: group) { return problem }
            start = end
        }
        return nil
    }

    /// Whether the expected data equals the snapshot: the same values and the same priorities at
    /// every level (the SDKs compare node hashes; `null` and `{}` are both empty).
    public static func sameData(_ expected: Node, _ snapshot: Node?) -> Bool {
        guard let snapshot else { return false }
        return expected == snapshot
    }

    /// The place of an event type in the order one listener must receive a change's events.
    public static func rank(_ type: EventType) -> Int {
        switch type {
        case .childRemoved: 0
        case .childAdded: 1
        case .childMoved: 2
        case .childChanged: 3
        case .value: 4
        }
    }

    /// An actual event on one line: type, listen path, key, prevName, data, listener and query.
    public static func render(_ event: Event) -> String {
        let listener = event.query.params.isDefault ? "\(event.registration)" : "\(event.registration), \(event.query.params)"
        guard let type = event.type else {
            if case .cancelled(let error) = event.kind {
                return "cancelled on \(event.query.path) error=\(error.message)  [\(listener)]"
            }
            return "unknown event on \(event.query.path)  [\(listener)]"
        }
        var text = "\(type.rawValue) on \(event.query.path)"
        if type != .value {
            text += " name=\(quoted(event.childKey?.name))"
            if type != .childRemoved { text += " prevName=\(quoted(event.previousKey?.name))" }
        }
        text += " data=" + (event.snapshot?.jsonString(.export) ?? "none")
        return text + "  [\(listener)]"
    }

    /// A key in quotes, or `null`.
    public static func quoted(_ name: String?) -> String {
        name.map { "\"\($0)\"" } ?? "null"
    }

    // MARK: Pieces

    /// Matches one listen-path group of `setMatch` (the slices have the same indices).
    private static func matchGroup(
        _ expected: ArraySlice<SyncPointSpecEvent>, _ actual: ArraySlice<Event>, listenPath: Path
    ) -> String? {
        let range = "\(expected.startIndex + 1)...\(expected.endIndex)"
        for index in actual.indices where actual[index].query.path != listenPath {
            return "event \(index + 1) was raised for the listener at \(actual[index].query.path), but expected events \(range) are for the listener at \(listenPath) (listen-path groups must come in the expected order)"
        }
        var pending = Array(expected)
        var lastType: [ListenerID: EventType] = [:]
        for index in actual.indices {
            let event = actual[index]
            if let type = event.type {
                let listener = ListenerID(path: listenPath, params: event.query.params)
                if let previous = lastType[listener], rank(previous) > rank(type) {
                    return "event \(index + 1) is a \(type.rawValue) after a \(previous.rawValue) for the same listener (\(event.query)); each listener gets child_removed, child_added, child_moved, child_changed, then value"
                }
                lastType[listener] = type
            }
            guard let match = pending.firstIndex(where: { difference($0, event, comparesRemovedPrevName: false) == nil }) else {
                return "event \(index + 1) (\(render(event))) matches none of the still-unmatched expected events \(range)"
            }
            pending.remove(at: match)
        }
        return nil
    }

    /// What differs between an expected and an actual event, or `nil` when they match.
    ///
    /// `value` events compare type and data; child events also the key and prevName, except the
    /// prevName of `child_removed` unless `comparesRemovedPrevName`.
    static func difference(_ expected: SyncPointSpecEvent, _ actual: Event, comparesRemovedPrevName: Bool) -> String? {
        guard let type = actual.type else { return "expected \(expected.type.rawValue), got a cancellation" }
        guard type == expected.type else { return "expected \(expected.type.rawValue), got \(type.rawValue)" }
        if type != .value {
            guard sameKey(expected.name, actual.childKey) else {
                return "expected name \(quoted(expected.name)), got \(quoted(actual.childKey?.name))"
            }
            if type != .childRemoved || comparesRemovedPrevName, !sameKey(expected.prevName, actual.previousKey) {
                return "expected prevName \(quoted(expected.prevName)), got \(quoted(actual.previousKey?.name))"
            }
        }
        guard sameData(expected.data, actual.snapshot) else {
            return "expected data \(expected.data.jsonString(.export)), got \(actual.snapshot?.jsonString(.export) ?? "none")"
        }
        return nil
    }

    /// Whether a fixture key name (or `null`) is the key (or its absence), byte for byte.
    static func sameKey(_ name: String?, _ key: ChildKey?) -> Bool {
        switch (name, key) {
        case (nil, nil): true
        case (let name?, let key?): name.utf8.elementsEqual(key.name.utf8)
        default: false
        }
    }

    /// The count mismatch ("extra events" / "missing events"), or `nil` when the counts agree.
    private static func countProblem(expected: Int, actual: Int) -> String? {
        if actual > expected { return "extra events: expected \(expected), got \(actual)" }
        if actual < expected { return "missing events: expected \(expected), got \(actual)" }
        return nil
    }

    /// One listener, as the set matcher tells them apart: listen path and query parameters.
    private struct ListenerID: Hashable {
        var path: Path
        var params: QueryParams
    }
}
