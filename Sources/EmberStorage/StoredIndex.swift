import EmberCore

/// An index the server's store keeps with the data: the children of one location in one value
/// or child order (``ServerStore/buildIndex(at:_:)``).
public struct StoredIndex: Hashable, Sendable {
    /// The row id of the index in the `indexes` table.
    let id: Int64
    /// The location whose children it orders.
    public let location: Path
    /// `.value` or `.child(path)`.
    public let order: Index

    /// Where a write at `path` lands relative to this index.
    func effect(of path: Path) -> Effect {
        if path.contains(location) { return .whole }
        guard location.contains(path) else { return .none }
        let key = path.keys[location.count]
        // The location's own priority is none of its children.
        return key.isPriority ? .none : .child(key)
    }

    /// What a write does to an index.
    enum Effect: Hashable {
        /// Nothing: the write is beside the location.
        case none
        /// The write replaces the location, or something above it: every child may change.
        case whole
        /// The write is inside one child, whose place may change.
        case child(ChildKey)
    }

    /// The stored name of an order (``Index/wireName``), read back.
    static func order(named name: String) -> Index? {
        if name == Index.value.wireName { return .value }
        guard !name.isEmpty, !name.hasPrefix(".") else { return nil }
        return .child(Path(unchecked: name))
    }
}
