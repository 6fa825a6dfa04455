import EmberCore
import EmberSync

/// JSON text to a node; the tests' data is always valid.
func node(_ json: String) -> Node {
    try! Node(jsonText: json)
}

/// A listener for every kind of event.
func listener(_ id: Int) -> EventRegistration {
    EventRegistration(id: RegistrationID(id))
}

/// Events rendered one per line as `<registration> <type> [key] [after prev] = <json>`, so
/// that expectations read like a transcript.
func render(_ events: [Event]) -> [String] {
    events.map { event in
        var text = "\(event.registration.rawValue) \(event.type?.rawValue ?? "cancelled")"
        if let key = event.childKey { text += " \(key)" }
        switch event.kind {
        case .childAdded(_, _, let previous), .childChanged(_, _, let previous), .childMoved(_, _, let previous):
            text += " after " + (previous?.name ?? "-")
        default:
            break
        }
        if let snapshot = event.snapshot { text += " = " + snapshot.jsonString(.export) }
        return text
    }
}
