import EmberCore

/// The identity of a listener, chosen by its owner.
public struct RegistrationID: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int

    public init(_ rawValue: Int) { self.rawValue = rawValue }

    public var description: String { "listener \(rawValue)" }
}

/// A listener attached to a query: who it is and which kinds of event it wants.
public struct EventRegistration: Sendable, Hashable {
    /// Who receives the events.
    public var id: RegistrationID
    /// The kinds of event delivered, one bit per ``EventType`` (asked for on every change, so
    /// not hashed).
    private var wanted: UInt8

    /// A listener for `types` (every kind by default).
    public init(id: RegistrationID, types: Set<EventType> = Set(EventType.allCases)) {
        self.id = id
        wanted = EventType.bits(of: types)
    }

    /// The kinds of event delivered; the others are not generated for this listener.
    public var types: Set<EventType> {
        get { Set(EventType.allCases.filter { wanted & $0.bit != 0 }) }
        set { wanted = EventType.bits(of: newValue) }
    }

    /// Whether the listener wants events of `type`.
    /// - Complexity: O(1).
    public func responds(to type: EventType) -> Bool { wanted & type.bit != 0 }

    /// The kinds that any of `registrations` wants, one bit per type.
    static func wanted(by registrations: [EventRegistration]) -> UInt8 {
        registrations.reduce(0) { $0 | $1.wanted }
    }
}
