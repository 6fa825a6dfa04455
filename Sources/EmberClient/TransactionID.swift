/// Numbers a transaction of one client.
public struct TransactionID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: Int

    init(_ rawValue: Int) { self.rawValue = rawValue }

    public static func < (lhs: TransactionID, rhs: TransactionID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "transaction \(rawValue)" }
}
