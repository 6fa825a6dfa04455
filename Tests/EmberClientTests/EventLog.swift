import EmberClient
import EmberCore
import EmberInstance
import EmberSync
import EmberTestSupport

/// Records what listeners hear, one line per event:
/// `child_added stego after bronto: 5`, `value /scores: {...}`, `cancelled permission_denied`.
final class EventLog {
    private(set) var lines: [String] = []

    /// Listens to `query` for `types`, logging each event with `label` in front when given.
    @discardableResult
    func watch(_ query: Query, _ types: Set<EventType>, label: String? = nil) -> ListenerHandle {
        query.observe(types) { [unowned self] event in
            let prefix = label.map { "\($0): " } ?? ""
            lines.append(prefix + Self.render(event))
        }
    }

    @discardableResult
    func watch(_ reference: Reference, _ types: Set<EventType>, label: String? = nil) -> ListenerHandle {
        watch(reference.query, types, label: label)
    }

    /// The lines logged since the last call.
    func take() -> [String] {
        defer { lines.removeAll() }
        return lines
    }

    func append(_ line: String) { lines.append(line) }

    static func render(_ event: ListenerEvent) -> String {
        switch event {
        case .data(.value, let snapshot, _):
            "value /\(snapshot.path.keys.map(\.name).joined(separator: "/")): \(snapshot.value.serialized())"
        case .data(let type, let snapshot, let previous):
            "\(type.rawValue) \(snapshot.key ?? "/")\(previous.map { " after \($0)" } ?? ""): \(snapshot.value.serialized())"
        case .cancelled(let error):
            "cancelled \(error.code)"
        }
    }
}

/// An instance in virtual time with seeded randomness.
func makeEmber(seed: UInt64 = 1, latency: Int64 = 0, disconnectTimeout: Int64 = 60_000) -> (Ember, ManualClock) {
    let clock = ManualClock()
    let ember = Ember(
        clock: clock, random: SeededRandom(seed: seed), disconnectTimeout: disconnectTimeout,
        reconnectPolicy: ReconnectPolicy(initialDelay: 1_000, maximumDelay: 30_000, multiplier: 1.3))
    ember.latency = latency
    return (ember, clock)
}


func ref(_ database: Database, _ path: String) -> Reference { try! database.reference(path) }

func client(_ ember: Ember, _ name: String, startOffline: Bool = false) -> Database {
    try! ember.client(named: name, startOffline: startOffline)
}
