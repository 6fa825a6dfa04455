import EmberCore
import EmberRules

/// The server's indexes: for each location whose rules declare `.indexOn`, a ``ChildIndex``
/// per declared order, built the first time a query needs it and kept in step with every write
/// from then on.
struct ServerIndexes {
    /// Where a write lands relative to an index's location.
    private enum Effect {
        /// A write inside one child: the index moves that child.
        case child(location: Path, index: Index, key: ChildKey, old: Node)
        /// A write at or above the location: the index is rebuilt.
        case rebuild(location: Path, index: Index)
    }

    let rules: Ruleset
    private var built: [Path: [Index: ChildIndex]] = [:]
    private var pending: [Effect] = []

    init(rules: Ruleset) {
        self.rules = rules
    }

    /// How many indexes are built.
    var count: Int { built.values.reduce(0) { $0 + $1.count } }

    /// The index answering `params` at `path`, when the rules declare one (built on first use).
    /// - Complexity: O(n log n) the first time, O(1) after.
    mutating func index(for params: QueryParams, at path: Path, root: Node) -> ChildIndex? {
        guard let order = params.orderBy else { return nil }
        switch order {
        case .key, .priority: return nil
        case .value, .child: break
        }
        if let index = built[path]?[order] { return index }
        guard rules.indexes(at: path).contains(order) else { return nil }
        let index = ChildIndex(order, children: root.child(at: path))
        built[path, default: [:]][order] = index
        return index
    }

    /// Notes, before a write at `paths`, the children whose indexed value may change.
    /// - Complexity: O(b·w) for b built indexes and w written paths.
    mutating func willWrite(at paths: [Path], root: Node) {
        guard !built.isEmpty else { return }
        for (location, indexes) in built {
            for path in paths {
                guard location.contains(path) || path.contains(location) else { continue }
                for order in indexes.keys {
                    if path.count > location.count {
                        let key = path.keys[location.count]
                        pending.append(.child(location: location, index: order, key: key, old: root.child(at: location.child(key))))
                    } else {
                        pending.append(.rebuild(location: location, index: order))
                    }
                }
            }
        }
    }

    /// Brings the indexes noted by ``willWrite(at:root:)`` up to date with the new data.
    /// - Complexity: O(log n) per changed child; O(n log n) per rebuilt index.
    mutating func didWrite(root: Node) {
        for effect in pending {
            switch effect {
            case .child(let location, let order, let key, let old):
                built[location]?[order]?.update(key, from: old, to: root.child(at: location.child(key)))
            case .rebuild(let location, let order):
                built[location]?[order] = ChildIndex(order, children: root.child(at: location))
            }
        }
        pending.removeAll()
    }
}
