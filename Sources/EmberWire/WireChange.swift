import EmberCore

/// One member of a merge: a path relative to the merge's location, and the value put there
/// (empty deletes).
public struct WireChange: Sendable, Hashable {
    public var path: Path
    public var node: Node

    public init(_ path: Path, _ node: Node) {
        self.path = path
        self.node = node
    }

    /// The changes of an update as Firebase's clients send it (the `d` of a merge, a REST
    /// `PATCH` body): an object whose keys are paths below `path` (ending in `.priority` or
    /// not) and whose values are written there (`null` deletes).
    /// - Throws: `invalid_value` when it is not an object; the key's or value's validation error.
    /// - Complexity: O(n) in the size of the update.
    public static func changes(parsing json: JSONValue?, at path: Path) throws(DatabaseError) -> [WireChange] {
        guard case .object(let members)? = json else {
            throw .invalidValue("an update must be an object of paths and values", at: path)
        }
        var changes: [WireChange] = []
        changes.reserveCapacity(members.count)
        for member in members {
            let relative = try Path(validatingWriteTarget: member.key)
            changes.append(WireChange(relative, try Node(json: member.value, at: path.appending(relative))))
        }
        return changes
    }
}
