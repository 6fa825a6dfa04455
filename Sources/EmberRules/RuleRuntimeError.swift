/// An evaluation that cannot go on (a method called on null, a number added to a boolean, a
/// child path that is not a path): the whole rule counts as false, as in Firebase.
public struct RuleRuntimeError: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}
