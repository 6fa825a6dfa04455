import EmberCore
import EmberSync

/// The data at a location at one moment, as a listener or a read saw it, with its children in
/// the query's order.
public struct DataSnapshot {
    /// The client it came from (gone if the client is).
    public weak var database: Database?
    /// Where the data is.
    public let path: Path
    /// The data.
    public let node: Node
    /// The order of the children (the query's).
    public let index: Index
    /// For a listener's event, where it comes from (``EventOrigin``); `nil` for a read.
    public let origin: EventOrigin?

    init(database: Database?, path: Path, node: Node, index: Index, origin: EventOrigin? = nil) {
        self.database = database
        self.path = path
        self.node = node
        self.index = index
        self.origin = origin
    }

    /// The last key of the path (`nil` at the root).
    public var key: String? { path.back?.name }

    /// The data as JSON (arrays where the keys make one), without priorities.
    public var value: JSONValue { node.jsonValue(.normal) }

    /// The data with priorities (`.value`/`.priority`), as exports write it.
    public var exportValue: JSONValue { node.jsonValue(.export) }

    /// Whether there is data.
    public var exists: Bool { !node.isEmpty }

    /// The priority.
    public var priority: Priority? { node.priority }

    /// The data below `relativePath` (empty when there is none).
    public func child(_ relativePath: String) throws(DatabaseError) -> DataSnapshot {
        let relative = try Path(validating: relativePath)
        return DataSnapshot(database: database, path: path.appending(relative), node: node.child(at: relative), index: .priority, origin: origin)
    }

    /// Whether there is data below `relativePath`.
    public func hasChild(_ relativePath: String) throws(DatabaseError) -> Bool {
        try child(relativePath).exists
    }

    /// Whether the data has children.
    public var hasChildren: Bool { node.childCount > 0 }

    /// How many children.
    public var childrenCount: Int { node.childCount }

    /// The children in the query's order.
    /// - Complexity: O(n) by key or priority, O(n log n) by value or child.
    public var children: [DataSnapshot] {
        node.children(in: index).map {
            DataSnapshot(database: database, path: path.child($0.key), node: $0.node, index: .priority, origin: origin)
        }
    }
}
