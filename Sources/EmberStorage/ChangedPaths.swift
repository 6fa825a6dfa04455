import EmberCore

/// The paths a server store has to write at its next commit, outermost only (a change below a
/// changed path is part of it): up to ``listLimit`` in a sorted list, more in a ``PathSet``.
///
/// A tick of one writer waiting for each answer changes one path: a ``PathSet`` made a
/// dictionary for each key of it, hashed each key twice and walked them again for the outermost
/// paths (4,500 instructions of a durable write, callgrind); a tick of a hundred writes paid
/// 2,400 a write. In the list, in path order, the only path that can lie above a new one is the
/// one just before where it goes, and those below it come just after it: a binary search.
struct ChangedPaths {
    private enum Storage {
        /// In path order; no two of these lie one at or below the other.
        case list([Path])
        case set(PathSet)
    }

    /// Above this many paths, by default, the list becomes a ``PathSet`` (an insertion moves
    /// the paths after it: O(k) each).
    static let defaultListLimit = 1024

    private var storage = Storage.list([])
    /// Above this many paths, the list becomes a ``PathSet``.
    let listLimit: Int

    /// No path marked; the list holds up to `listLimit` paths.
    init(listLimit: Int = Self.defaultListLimit) {
        self.listLimit = listLimit
    }

    /// Whether no path is marked.
    var isEmpty: Bool {
        switch storage {
        case .list(let paths): paths.isEmpty
        case .set(let set): set.isEmpty
        }
    }

    /// Where `path` goes in `paths` (sorted): the index of the first path not before it.
    /// - Complexity: O(d log k).
    private static func insertionIndex(of path: Path, in paths: [Path]) -> Int {
        var low = 0, high = paths.count
        while low < high {
            let middle = (low + high) / 2
            if paths[middle] < path { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Marks `path` as changed (and everything below it).
    /// - Complexity: O(d log k + k) for k paths marked (at most ``listLimit``) of depth d; O(d)
    ///   once there are more.
    mutating func fold(_ path: Path) {
        switch storage {
        case .list(var paths):
            let index = Self.insertionIndex(of: path, in: paths)
            // The path itself, or the one path that can lie above it.
            if index < paths.count, paths[index] == path { return }
            if index > 0, paths[index - 1].contains(path) { return }
            var end = index
            while end < paths.count, path.contains(paths[end]) { end += 1 }
            storage = .list([])
            paths.replaceSubrange(index..<end, with: CollectionOfOne(path))
            if paths.count > listLimit {
                var set = PathSet()
                for path in paths { set.fold(path) }
                storage = .set(set)
            } else {
                storage = .list(paths)
            }
        case .set(var set):
            storage = .list([])
            set.fold(path)
            storage = .set(set)
        }
    }

    /// Whether a marked path lies at, above or below `path`.
    /// - Complexity: O(d log k); O(d) in a set.
    func touches(_ path: Path) -> Bool {
        switch storage {
        case .list(let paths):
            let index = Self.insertionIndex(of: path, in: paths)
            // At or below it: where it goes; above it: just before.
            if index < paths.count, path.contains(paths[index]) { return true }
            return index > 0 && paths[index - 1].contains(path)
        case .set(let set):
            return set.touches(path)
        }
    }

    /// The marked paths: in path order up to ``listLimit``, in no particular order beyond.
    /// - Complexity: O(1) in the list; O(k·d) in a set.
    var outermost: [Path] {
        switch storage {
        case .list(let paths): paths
        case .set(let set): set.outermost
        }
    }

    /// Forgets every marked path.
    /// - Complexity: O(k).
    mutating func removeAll() {
        storage = .list([])
    }
}
