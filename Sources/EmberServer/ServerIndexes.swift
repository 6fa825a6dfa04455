import EmberCore
import EmberRules

/// The server's indexes: a ``ChildIndex`` per location and value or child order that the rules
/// declare (`.indexOn`) or that a live listen orders by, built the first time a query needs it
/// and kept in step with every write from then on.
///
/// An index no rule declares lives as long as a listen needs it: Firebase answers such a query
/// by a scan (and warns that an index is missing), which costs every write under a listened
/// leaderboard of 100,000 children a pass over all of them; Ember indexes it while it is
/// listened to instead (deliberately better; `get`s still scan, as a one-off read should not
/// leave an index behind).
struct ServerIndexes {
    /// Where a write lands relative to an index's location.
    private enum Effect {
        /// A write inside one child: the index moves that child.
        case child(location: Path, index: Index, key: ChildKey, old: Node)
        /// A write at or above the location: the index is rebuilt.
        case rebuild(location: Path, index: Index)
    }

    private(set) var rules: Ruleset
    private var built: [Path: [Index: ChildIndex]] = [:]
    private var pending: [Effect] = []
    /// How many live listens order each location by each value or child order.
    private var listened: [Path: [Index: Int]] = [:]

    init(rules: Ruleset) {
        self.rules = rules
    }

    /// How many indexes are built.
    var count: Int { built.values.reduce(0) { $0 + $1.count } }

    /// Forgets every built index (the data they were built from is gone, or the rules changed);
    /// the listens counted stay counted.
    mutating func reset(rules: Ruleset) {
        self.rules = rules
        built = [:]
        pending = []
    }

    /// Forgets the indexes built at, above or below `path` (its data left memory); they are
    /// built again when a query needs them.
    /// - Complexity: O(b) for b indexed locations.
    mutating func drop(touching path: Path) {
        for location in built.keys where location.contains(path) || path.contains(location) { built[location] = nil }
    }

    /// The value or child order of `params` when it is filtered (a query that loads every child
    /// needs no index).
    private static func indexedOrder(of params: QueryParams) -> Index? {
        guard !params.loadsAllData, let order = params.orderBy else { return nil }
        switch order {
        case .key, .priority: return nil
        case .value, .child: return order
        }
    }

    /// Counts a listen of `params` at `path` that started.
    /// - Complexity: O(1) amortized.
    mutating func listenStarted(_ params: QueryParams, at path: Path) {
        guard let order = Self.indexedOrder(of: params) else { return }
        listened[path, default: [:]][order, default: 0] += 1
    }

    /// Counts a listen of `params` at `path` that ended; the last one to end drops an index no
    /// rule declares.
    /// - Complexity: O(1) amortized.
    mutating func listenEnded(_ params: QueryParams, at path: Path) {
        guard let order = Self.indexedOrder(of: params), let count = listened[path]?[order] else { return }
        if count > 1 {
            listened[path]?[order] = count - 1
            return
        }
        listened[path]?[order] = nil
        if listened[path]?.isEmpty == true { listened[path] = nil }
        if !rules.indexes(at: path).contains(order) {
            built[path]?[order] = nil
            if built[path]?.isEmpty == true { built[path] = nil }
        }
    }

    /// The index answering `params` at `path`, when the rules declare one or a live listen
    /// orders by it (built on first use).
    /// - Complexity: O(n log n) the first time, O(1) after.
    mutating func index(for params: QueryParams, at path: Path, root: Node) -> ChildIndex? {
        guard let order = params.orderBy else { return nil }
        switch order {
        case .key, .priority: return nil
        case .value, .child: break
        }
        if let index = built[path]?[order] { return index }
        guard listened[path]?[order] != nil || rules.indexes(at: path).contains(order) else { return nil }
        let index = ChildIndex(order, children: root.child(at: path))
        built[path, default: [:]][order] = index
        return index
    }

    /// Whether no index is built (a write has nothing to note).
    var isEmpty: Bool { built.isEmpty }

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
