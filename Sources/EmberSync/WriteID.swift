/// The number of a user write, given by its owner in increasing order; acknowledgements and
/// reverts name the write by it.
public struct WriteID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: Int

    public init(_ rawValue: Int) { self.rawValue = rawValue }

    public static func < (lhs: WriteID, rhs: WriteID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "write \(rawValue)" }
}
