/// The number the client gives a filtered query so that the server's updates for it can be told
/// apart from updates for other queries at the same location.
///
/// Each ``SyncTree`` numbers from 1, in the order filtered views are created, and never reuses a
/// number.
public struct QueryTag: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: Int

    public init(_ rawValue: Int) { self.rawValue = rawValue }

    public static func < (lhs: QueryTag, rhs: QueryTag) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "tag \(rawValue)" }
}
