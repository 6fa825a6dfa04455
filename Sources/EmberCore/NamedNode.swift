/// A child and its key: what queries return and events carry.
public struct NamedNode: Sendable, Hashable, CustomStringConvertible {
    public var key: ChildKey
    public var node: Node

    public init(_ key: ChildKey, _ node: Node) {
        self.key = key
        self.node = node
    }

    public var description: String { "\(key): \(node)" }
}
