import EmberCore

/// The paths a server store has to write at its next commit, outermost only (a change below a
/// changed path is part of it): a few in a list, many in a ``PathSet``.
///
/// A tick of one writer waiting for each answer changes one path: a ``PathSet`` made a
/// dictionary for each key of it, hashed each key twice and walked them again for the outermost
/// paths (4,500 instructions of a durable write, callgrind). Up to ``listLimit`` paths, a list
/// compared key by key does the same.
struct ChangedPaths {
    private enum Storage {
        /// No two of these lie one at or below the other.
        case list([Path])
        case set(PathSet)
    }

    /// Above this many paths, the list becomes a ``PathSet``.
    static let listLimit = 16

    private var storage = Storage.list([])

    /// Whether no path is marked.
    var isEmpty: Bool {
        switch storage {
        case .list(let paths): paths.isEmpty
        case .set(let set): set.isEmpty
        }
    }

    /// Marks `path` as changed (and everything below it).
    /// - Complexity: O(k·d) for k paths marked (at most ``listLimit``) of depth d; O(d) once
    ///   there are more.
    mutating func fold(_ path: Path) {
        switch storage {
        case .list(var paths):
            if paths.contains(where: { $0.contains(path) }) { return }
            storage = .list([])
            paths.removeAll { path.contains($0) }
            paths.append(path)
            if paths.count > Self.listLimit {
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
    /// - Complexity: O(k·d) for k paths in the list; O(d) in a set.
    func touches(_ path: Path) -> Bool {
        switch storage {
        case .list(let paths): paths.contains { $0.contains(path) || path.contains($0) }
        case .set(let set): set.touches(path)
        }
    }

    /// The marked paths, in no particular order.
    /// - Complexity: O(k·d).
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
