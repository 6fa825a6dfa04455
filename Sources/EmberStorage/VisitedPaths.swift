import EmberCore

/// The paths a walk has visited, for a walk that visits few: a short list compared in turn,
/// then, past ``listLimit``, a set (hashing a path hashes every key of it, which costs more
/// than comparing a few short paths).
struct VisitedPaths {
    private var list: [Path] = []
    private var set: Set<Path> = []

    /// Past this many paths, they are hashed into a set.
    static let listLimit = 16

    /// Notes `path` as visited.
    /// - Returns: whether it was not visited before.
    /// - Complexity: O(``listLimit``) while the list holds them, then O(d) for a path of d keys.
    mutating func insert(_ path: Path) -> Bool {
        guard set.isEmpty else { return set.insert(path).inserted }
        if list.contains(path) { return false }
        list.append(path)
        if list.count > Self.listLimit {
            set = Set(list)
            list = []
        }
        return true
    }
}
