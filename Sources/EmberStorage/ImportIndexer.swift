import EmberCore

/// The sort keys of the indexes an import builds, gathered on the import's reading thread from
/// the pieces it parses, so that building an index takes no second pass over the rows (a pass
/// over the million rows of 100,000 users cost an import of 42 MB half a second more).
///
/// A piece at or above an index's location gives all its children; a piece at a child gives
/// that child; a piece deeper inside a child (a child too large to be parsed whole) does not
/// say what the child is ordered by, and the index is then built from the rows after all
/// (``needsScan``).
struct ImportIndexer: Sendable {
    /// One index being built.
    struct Target: Sendable {
        let location: Path
        let order: Index
        /// Each child's place, by key.
        var keys: [ChildKey: IndexedValueKey] = [:]
        /// Whether a piece fell inside a child: the keys are incomplete.
        var needsScan = false
    }

    private(set) var targets: [Target]

    /// An indexer for the indexes of `locations`, each ordered as given.
    init(_ indexes: [(location: Path, order: Index)]) {
        targets = indexes.map { Target(location: $0.location, order: $0.order) }
    }

    /// Takes in one piece of the import, in document order.
    /// - Complexity: O(c) for the c children a piece at or above a location gives; O(1)
    ///   otherwise (plus the look-up of a child path in the piece).
    mutating func add(_ piece: ExportReader.Piece) {
        guard !targets.isEmpty else { return }
        switch piece {
        case .priority:
            return
        case .clear(let path):
            for index in targets.indices {
                let location = targets[index].location
                if path.contains(location) {
                    targets[index].keys.removeAll()
                } else if location.contains(path) {
                    if path.count == location.count + 1 {
                        targets[index].keys[path.keys[location.count]] = nil
                    } else {
                        targets[index].needsScan = true
                    }
                }
            }
        case .subtree(let path, let node):
            for index in targets.indices {
                let location = targets[index].location
                let order = targets[index].order
                if path.contains(location) {
                    // The whole location: its children replace what was gathered.
                    targets[index].keys.removeAll()
                    let relative = Path(keys: Array(location.keys.dropFirst(path.count)))
                    for child in node.child(at: relative).children {
                        targets[index].keys[child.key] = IndexedValueKey(child, in: order)
                    }
                } else if location.contains(path) {
                    if path.count == location.count + 1 {
                        let key = path.keys[location.count]
                        targets[index].keys[key] = node.isEmpty ? nil : IndexedValueKey(NamedNode(key, node), in: order)
                    } else {
                        targets[index].needsScan = true
                    }
                }
            }
        }
    }
}
