import EmberCore

/// The locations of the server's tree held whole in memory (``ServerTree``), each with what it
/// costs and when it was last used: a trie of keys whose marked nodes are the regions. Regions
/// never nest: marking a location absorbs the regions below it.
///
/// One owner (the ``ServerTree``), confined to the engine like it; its nodes are classes changed
/// in place.
struct LoadedRegions {
    /// A loaded location's bookkeeping.
    struct Region {
        /// The bytes it is counted for (its rows' paths and JSON, as read or estimated).
        var bytes: Int
        /// When it was last read or written (a counter: larger is more recent).
        var lastUse: UInt64
    }

    /// One key of the trie.
    final class Entry {
        var children: [ChildKey: Entry] = [:]
        var region: Region?
    }

    private let top = Entry()

    /// The region at or above `path`, with its location's depth.
    /// - Complexity: O(d) for a path of depth d.
    func covering(_ path: Path) -> (entry: Entry, depth: Int)? {
        var entry = top
        var depth = 0
        while true {
            if entry.region != nil { return (entry, depth) }
            guard depth < path.count, let next = entry.children[path.keys[depth]] else { return nil }
            entry = next
            depth += 1
        }
    }

    /// What the trie says of one path, found in one walk down it (``look(_:)``).
    enum Lookup {
        /// A region at or above the path holds it whole: its entry, and its location's depth.
        case covered(entry: Entry, depth: Int)
        /// No region holds the path. `interiorDepth`: how many of its ancestors, from the root
        /// down, have a region strictly below them (`k`: the root and the next `k - 1`);
        /// `entry`: the trie's entry at the path, when regions lie below it
        /// (``regions(below:)`` reads them).
        case outside(interiorDepth: Int, entry: Entry?)
    }

    /// ``covering(_:)``, the ancestors known to hold no leaf and the entry at `path`, in one
    /// walk: what a location read needs to know before it goes to the store.
    ///
    /// An ancestor with a region strictly below it holds no leaf row in the store: the region
    /// below it was read by ``ServerStore/loadLocation(_:skipping:interiorAncestors:)``, which
    /// found no leaf above it (or else the region would be that leaf's), or split from a region
    /// that was; and a write at or above the ancestor since would have needed a region there,
    /// which absorbs those below (regions never nest), as ``ServerTree/forget(touching:dropped:)``
    /// drops them when the store is changed under the tree. The trie keeps no empty entries, so
    /// every entry met on the way down has a region below it.
    /// - Complexity: O(d) for a path of depth d.
    func look(_ path: Path) -> Lookup {
        var entry = top
        var depth = 0
        while true {
            if entry.region != nil { return .covered(entry: entry, depth: depth) }
            guard depth < path.count else {
                // `entry` is at the path: its ancestors have regions below them, through it.
                return .outside(interiorDepth: depth, entry: entry.children.isEmpty ? nil : entry)
            }
            guard let next = entry.children[path.keys[depth]] else {
                // The entries walked, the root's included, each have a region below them.
                return .outside(interiorDepth: entry.children.isEmpty ? depth : depth + 1, entry: nil)
            }
            entry = next
            depth += 1
        }
    }

    /// The row path of the region a row lies at or below (`rowPath`: keys joined by `/`, as
    /// the store keeps them), if any.
    /// - Complexity: O(d) for a row path of d keys.
    func region(holdingRow rowPath: String) -> String? {
        var entry = top
        var end = rowPath.utf8.startIndex
        var start = rowPath.utf8.startIndex
        while true {
            if entry.region != nil { return String(rowPath.utf8[..<end])! }
            guard start < rowPath.utf8.endIndex else { return nil }
            end = rowPath.utf8[start...].firstIndex(of: UInt8(ascii: "/")) ?? rowPath.utf8.endIndex
            guard let next = entry.children[ChildKey(unchecked: String(rowPath.utf8[start..<end])!)] else { return nil }
            entry = next
            start = end < rowPath.utf8.endIndex ? rowPath.utf8.index(after: end) : end
        }
    }

    /// The regions strictly below `entry` (from ``look(_:)``), each relative to it with its
    /// bytes.
    /// - Complexity: O(e) for the e trie entries below it.
    func regions(below entry: Entry) -> [(path: Path, bytes: Int)] {
        var found: [(path: Path, bytes: Int)] = []
        for (key, child) in entry.children { Self.collect(child, at: Path(keys: [key]), into: &found) }
        return found
    }

    /// The regions strictly below `path`, each relative to it with its bytes.
    /// - Complexity: O(e) for the e trie entries below `path`.
    func regions(below path: Path) -> [(path: Path, bytes: Int)] {
        guard let entry = entry(at: path) else { return [] }
        var found: [(path: Path, bytes: Int)] = []
        for (key, child) in entry.children { Self.collect(child, at: Path(keys: [key]), into: &found) }
        return found
    }

    /// Every region, with its location and bookkeeping.
    /// - Complexity: O(e) for e trie entries.
    func all() -> [(path: Path, region: Region)] {
        var found: [(path: Path, region: Region)] = []
        Self.collectRegions(top, at: .root, into: &found)
        return found
    }

    /// Marks `path` loaded, absorbing the regions below it.
    /// - Returns: the bytes of the regions absorbed.
    /// - Complexity: O(d + e) for a path of depth d and e entries below it.
    @discardableResult
    mutating func insert(_ path: Path, _ region: Region) -> Int {
        var entry = top
        for key in path.keys { entry = entry.children.value(forKey: key, inserting: Entry.init) }
        var absorbed = 0
        for child in entry.children.values { absorbed += Self.bytes(below: child) }
        entry.children = [:]
        entry.region = region
        return absorbed
    }

    /// Unmarks the region at exactly `path`, pruning the trie's empty entries.
    /// - Complexity: O(d).
    mutating func remove(_ path: Path) {
        var trail: [Entry] = [top]
        for key in path.keys {
            guard let next = trail[trail.count - 1].children[key] else { return }
            trail.append(next)
        }
        trail[trail.count - 1].region = nil
        var depth = path.count
        while depth > 0, trail[depth].region == nil, trail[depth].children.isEmpty {
            trail[depth - 1].children[path.keys[depth - 1]] = nil
            depth -= 1
        }
    }

    private func entry(at path: Path) -> Entry? {
        var entry = top
        for key in path.keys {
            guard let next = entry.children[key] else { return nil }
            entry = next
        }
        return entry
    }

    private static func bytes(below entry: Entry) -> Int {
        var total = entry.region?.bytes ?? 0
        for child in entry.children.values { total += bytes(below: child) }
        return total
    }

    private static func collect(_ entry: Entry, at path: Path, into found: inout [(path: Path, bytes: Int)]) {
        if let region = entry.region {
            found.append((path, region.bytes))
            return
        }
        for (key, child) in entry.children { collect(child, at: path.child(key), into: &found) }
    }

    private static func collectRegions(_ entry: Entry, at path: Path, into found: inout [(path: Path, region: Region)]) {
        if let region = entry.region {
            found.append((path, region))
            return
        }
        for (key, child) in entry.children { collectRegions(child, at: path.child(key), into: &found) }
    }
}
