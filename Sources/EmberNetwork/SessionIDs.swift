import Synchronization

/// The session ids of the hello (`s`): unique within the process, in order.
final class SessionIDs: Sendable {
    private let counter = Atomic<Int>(0)

    func next() -> String {
        "ember-\(counter.add(1, ordering: .relaxed).newValue)"
    }
}
