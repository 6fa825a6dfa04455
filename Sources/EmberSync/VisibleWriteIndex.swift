import DequeModule
import EmberCore

/// Where the visible pending writes are: for each location, the writes that change it (oldest
/// first; an update is listed at each of its changed paths) and how many change a location below
/// it. ``WriteTree`` asks it, for each write it removes, whether later writes shadow it or others
/// overlap it (``meeting(_:removing:)``), without a scan of the list.
///
/// A tree of keys rather than dictionaries keyed by path: each question walks the path once,
/// hashing each key once, where a dictionary lookup per ancestor hashes the ancestor's keys
/// again (a replay of 100,000 queued writes spent a sixth of its time hashing paths there).
struct VisibleWriteIndex: Sendable {
    /// The writes that change exactly this location, oldest first.
    private var writes: Deque<WriteID> = []
    /// How many listings (a write at one of its paths) are strictly below this location.
    private var below = 0
    private var children: [ChildKey: VisibleWriteIndex] = [:]

    /// Whether nothing is listed.
    /// - Complexity: O(1).
    var isEmpty: Bool { writes.isEmpty && below == 0 }

    /// Lists write `id` at `path` (it is the newest there).
    /// - Complexity: O(d) for a path of depth d.
    mutating func add(_ id: WriteID, at path: Path) {
        add(id, at: path.keys[...])
    }

    private mutating func add(_ id: WriteID, at keys: ArraySlice<ChildKey>) {
        guard let first = keys.first else {
            writes.append(id)
            return
        }
        below += 1
        children[first, default: VisibleWriteIndex()].add(id, at: keys.dropFirst())
    }

    /// Takes write `id` off the list at `path`.
    /// - Complexity: O(d) for a path of depth d, plus a search of the writes listed at `path`
    ///   (O(1) for the oldest there).
    mutating func remove(_ id: WriteID, at path: Path) {
        _ = remove(id, at: path.keys[...])
    }

    /// Returns whether this location is left empty.
    private mutating func remove(_ id: WriteID, at keys: ArraySlice<ChildKey>) -> Bool {
        guard let first = keys.first else {
            if writes.first == id {
                writes.removeFirst()
            } else if let index = writes.firstIndex(of: id) {
                writes.remove(at: index)
            }
            return isEmpty
        }
        // One access to the child: it is changed in place.
        guard let emptied = children[first]?.remove(id, at: keys.dropFirst()) else { return isEmpty }
        below -= 1
        if emptied { children[first] = nil }
        return isEmpty
    }

    /// What a removed write `id` listed at `path` meets there, in one walk: whether a listed
    /// write other than it overlaps `path` (a second write at `path`, a write below it, or one
    /// at a location above it), and whether a write newer than it is listed at `path` or above
    /// it (one that decides what shows there).
    /// - Complexity: O(d) for a path of depth d.
    func meeting(_ path: Path, removing id: WriteID) -> (othersOverlap: Bool, newer: Bool) {
        var node = self
        var overlap = false
        for key in path.keys {
            if let newest = node.writes.last {
                overlap = true
                if newest > id { return (true, true) }
            }
            guard let child = node.children[key] else { return (overlap, false) }
            node = child
        }
        let newer = node.writes.last.map { $0 > id } ?? false
        return (overlap || node.writes.count > 1 || node.below > 0, newer)
    }

    /// Appends the writes listed at `path`, above it and below it, in no particular order (an
    /// update listed at several of its paths appears once for each).
    /// - Complexity: O(d + m) for a path of depth d and m listings at or below it.
    func appendOverlapping(_ path: Path, to result: inout [WriteID]) {
        var node = self
        for key in path.keys {
            result += node.writes
            guard let child = node.children[key] else { return }
            node = child
        }
        node.appendAll(to: &result)
    }

    private func appendAll(to result: inout [WriteID]) {
        result += writes
        guard below > 0 else { return }
        for child in children.values { child.appendAll(to: &result) }
    }

    /// Forgets every listing.
    mutating func removeAll() {
        writes = []
        below = 0
        children = [:]
    }
}
