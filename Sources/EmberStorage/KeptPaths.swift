import EmberCore

/// The locations whose cached data pruning keeps (those of the remaining tracked queries, the
/// pins and the queued writes), counted by location and by ancestor, so that asking whether a
/// location is kept, or holds kept data below it, costs the same however many there are.
struct KeptPaths {
    /// How many times each location is kept (several queries may keep one).
    private var at: [Path: Int] = [:]
    /// How many kept locations lie strictly below each location.
    private var below: [Path: Int] = [:]

    /// Keeps `path` (once more).
    /// - Complexity: O(d) hash updates for a path of depth d.
    mutating func insert(_ path: Path) { count(path, 1) }

    /// Keeps `path` once less.
    /// - Complexity: O(d) hash updates.
    mutating func remove(_ path: Path) { count(path, -1) }

    /// Whether `path` or a location above it is kept.
    /// - Complexity: O(d) hash lookups.
    func keeps(_ path: Path) -> Bool {
        if at.isEmpty { return false }
        var current: Path? = path
        while let location = current {
            if at[location] != nil { return true }
            current = location.parent
        }
        return false
    }

    /// Whether a location strictly below `path` is kept.
    /// - Complexity: O(1) hash lookup.
    func keepsBelow(_ path: Path) -> Bool { below[path] != nil }

    private mutating func count(_ path: Path, _ delta: Int) {
        Self.add(delta, to: &at, at: path)
        var ancestor = path
        while let parent = ancestor.parent {
            Self.add(delta, to: &below, at: parent)
            ancestor = parent
        }
    }

    private static func add(_ delta: Int, to counts: inout [Path: Int], at path: Path) {
        let count = (counts[path] ?? 0) + delta
        counts[path] = count <= 0 ? nil : count
    }
}
