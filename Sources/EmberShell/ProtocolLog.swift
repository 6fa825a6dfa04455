import DequeModule
import EmberClient
import EmberCore
import EmberWire

/// The last protocol messages of a session, numbered, for the viewer's timeline (`view`).
struct ProtocolLog {
    /// One message as it crossed.
    struct Entry {
        let number: Int
        let client: ClientName
        let direction: ProtocolDirection
        let text: String
        let time: Int64
    }

    /// How many messages are kept.
    static let kept = 1_000

    private(set) var entries: Deque<Entry> = []
    private var next = 1

    /// Keeps a message, forgetting the oldest past ``kept``.
    /// - Complexity: O(1) amortized.
    mutating func append(client: ClientName, direction: ProtocolDirection, text: String, at time: Int64) {
        entries.append(Entry(number: next, client: client, direction: direction, text: text, time: time))
        next += 1
        if entries.count > Self.kept { entries.removeFirst() }
    }

    /// The messages numbered above `number`, oldest first, and the number to ask from next.
    /// - Complexity: O(k) for k messages returned.
    func after(_ number: Int) -> (entries: [Entry], next: Int) {
        (entries.filter { $0.number > number }, next - 1)
    }
}
