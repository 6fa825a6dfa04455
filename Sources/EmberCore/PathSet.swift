/// A set of paths kept as a tree of their keys, for the questions the stores ask of many paths
/// at once: whether a path or one of its ancestors is in the set, and which members no other
/// member covers.
///
/// A `Set<Path>` answers "is an ancestor of `p` in it?" with one lookup per ancestor, each
/// hashing that ancestor's keys again: O(d²) key hashes for a path of depth d. Walking down
/// this tree hashes each key once.
public struct PathSet: Sendable {
    private var isMember = false
    private var children: [ChildKey: PathSet] = [:]

    /// An empty set.
    public init() {}

    /// Whether the set has no member.
    /// - Complexity: O(1).
    public var isEmpty: Bool { !isMember && children.isEmpty }

    /// Adds `path`; returns whether it was not in the set yet.
    /// - Complexity: O(d) for a path of depth d.
    @discardableResult
    public mutating func insert(_ path: Path) -> Bool {
        insert(path.keys[...])
    }

    private mutating func insert(_ keys: ArraySlice<ChildKey>) -> Bool {
        guard let first = keys.first else {
            defer { isMember = true }
            return !isMember
        }
        return children[first, default: PathSet()].insert(keys.dropFirst())
    }

    /// Removes `path` (its descendants stay); returns whether it was in the set.
    /// - Complexity: O(d) for a path of depth d.
    @discardableResult
    public mutating func remove(_ path: Path) -> Bool {
        remove(path.keys[...])
    }

    private mutating func remove(_ keys: ArraySlice<ChildKey>) -> Bool {
        guard let first = keys.first else {
            defer { isMember = false }
            return isMember
        }
        // One access to the child: it is changed in place.
        guard let (removed, emptied) = children[first]?.removeReportingEmpty(keys.dropFirst()) else { return false }
        if emptied { children[first] = nil }
        return removed
    }

    private mutating func removeReportingEmpty(_ keys: ArraySlice<ChildKey>) -> (removed: Bool, emptied: Bool) {
        let removed = remove(keys)
        return (removed, isEmpty)
    }

    /// Whether `path` itself is in the set.
    /// - Complexity: O(d) for a path of depth d.
    public func contains(_ path: Path) -> Bool {
        var node = self
        for key in path.keys {
            guard let child = node.children[key] else { return false }
            node = child
        }
        return node.isMember
    }

    /// Whether `path` or one of its ancestors is in the set.
    /// - Complexity: O(d) for a path of depth d.
    public func covers(_ path: Path) -> Bool {
        if isMember { return true }
        var node = self
        for key in path.keys {
            guard let child = node.children[key] else { return false }
            if child.isMember { return true }
            node = child
        }
        return false
    }

    /// Whether `path`, one of its ancestors or one of its descendants is in the set.
    /// - Complexity: O(d) for a path of depth d.
    public func touches(_ path: Path) -> Bool {
        var node = self
        for key in path.keys {
            if node.isMember { return true }
            guard let child = node.children[key] else { return false }
            node = child
        }
        return !node.isEmpty
    }

    /// Adds `path` unless it or an ancestor is in the set, and then drops its descendants, so
    /// that the set keeps only outermost members; returns whether it was added.
    /// - Complexity: O(d) for a path of depth d, plus what is dropped.
    @discardableResult
    public mutating func fold(_ path: Path) -> Bool {
        fold(path.keys[...])
    }

    private mutating func fold(_ keys: ArraySlice<ChildKey>) -> Bool {
        if isMember { return false }
        guard let first = keys.first else {
            isMember = true
            children = [:]
            return true
        }
        return children[first, default: PathSet()].fold(keys.dropFirst())
    }

    /// The members that no other member covers (has as an ancestor), in no particular order.
    /// - Complexity: O(n) for the n nodes of the tree down to those members.
    public var outermost: [Path] {
        var found: [Path] = []
        var keys: [ChildKey] = []
        collectOutermost(into: &found, keys: &keys)
        return found
    }

    private func collectOutermost(into found: inout [Path], keys: inout [ChildKey]) {
        if isMember {
            found.append(Path(keys: keys))
            return
        }
        for (key, child) in children {
            keys.append(key)
            child.collectOutermost(into: &found, keys: &keys)
            keys.removeLast()
        }
    }

    /// Removes every member.
    /// - Complexity: O(n) for the n nodes of the tree.
    public mutating func removeAll() {
        isMember = false
        children = [:]
    }
}
