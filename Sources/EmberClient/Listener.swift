import EmberCore
import EmberSync

/// A callback registered on a query.
struct Listener {
    let query: QuerySpec
    /// Removed after its first event (`once`).
    let once: Bool
    let callback: (ListenerEvent) -> Void
    /// The event types asked for, one bit a type (a `Set<EventType>` hashes each type's raw
    /// string: its `contains` cost every delivered event about 350 instructions, callgrind).
    private let typeBits: UInt8

    init(query: QuerySpec, types: Set<EventType>, once: Bool, callback: @escaping (ListenerEvent) -> Void) {
        self.query = query
        self.once = once
        self.callback = callback
        typeBits = EventType.bits(of: types)
    }

    /// Whether the listener asked for events of `type`.
    /// - Complexity: O(1).
    func accepts(_ type: EventType) -> Bool { typeBits & type.bit != 0 }
}
