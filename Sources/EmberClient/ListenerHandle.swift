/// Identifies a listener, to remove it.
public struct ListenerHandle: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int

    init(_ rawValue: Int) { self.rawValue = rawValue }

    public var description: String { "listener \(rawValue)" }
}
