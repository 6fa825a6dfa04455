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
    /// The kinds of event delivered; the others are not generated for this listener.
    public var types: Set<EventType>

    /// A listener for `types` (every kind by default).
    public init(id: RegistrationID, types: Set<EventType> = Set(EventType.allCases)) {
        self.id = id
        self.types = types
    }

    /// Whether the listener wants events of `type`.
    public func responds(to type: EventType) -> Bool { types.contains(type) }
}
