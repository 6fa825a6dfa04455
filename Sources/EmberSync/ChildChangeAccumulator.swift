import EmberCore

/// Collects the child changes of one operation on one view, folding successive changes to the
/// same child into one (added then removed cancels out; removed then added is a change).
struct ChildChangeAccumulator {
    /// Each child touched, in the order first touched, with its folded change (`nil` where two
    /// cancelled out).
    private var changes: [(key: ChildKey, change: Change?)] = []
    /// Where each child past the first ``scanLimit`` is in `changes`; built only once a second
    /// change may need folding, so that a whole-node comparison of a million children skips
    /// the hashing.
    private var positions: [ChildKey: Int] = [:]
    private var isIndexed = true

    /// Below this many children a child is found by a scan: most operations change one child,
    /// and hashing its key costs more than comparing a few keys.
    private static let scanLimit = 8

    init() {}

    /// An accumulator holding changes to distinct children, as a whole-node comparison yields.
    init(distinct: [Change]) {
        changes = distinct.map { ($0.childKey!, $0) }
        isIndexed = distinct.count <= Self.scanLimit
    }

    /// Whether nothing was recorded.
    var isEmpty: Bool { changes.isEmpty }

    /// Records a child_added, child_removed or child_changed.
    /// - Complexity: O(1) amortised (O(c) once after ``init(distinct:)`` with c changes).
    mutating func track(_ change: Change) {
        guard let key = change.childKey else { preconditionFailure("only child changes are tracked") }
        if !isIndexed {
            for position in Self.scanLimit..<changes.count { positions[changes[position].key] = position }
            isIndexed = true
        }
        guard let position = position(of: key) else {
            if changes.count >= Self.scanLimit { positions[key] = changes.count }
            changes.append((key, change))
            return
        }
        guard let previous = changes[position].change else {
            changes[position].change = change
            return
        }
        switch (previous, change) {
        case (.childRemoved(_, let old), .childAdded(_, let node)):
            changes[position].change = .childChanged(key, node, old: old)
        case (.childAdded, .childRemoved):
            changes[position].change = nil
        case (.childChanged(_, _, let old), .childRemoved):
            changes[position].change = .childRemoved(key, old: old)
        case (.childAdded, .childChanged(_, let node, _)):
            changes[position].change = .childAdded(key, node)
        case (.childChanged(_, _, let old), .childChanged(_, let node, _)):
            changes[position].change = .childChanged(key, node, old: old)
        default:
            preconditionFailure("illegal change \(change) after \(previous) for \(key)")
        }
    }

    /// Where the change to `key` is: the first ``scanLimit`` children are scanned, later ones
    /// looked up in `positions`.
    /// - Complexity: O(1).
    private func position(of key: ChildKey) -> Int? {
        for position in 0..<min(changes.count, Self.scanLimit) where changes[position].key == key {
            return position
        }
        return changes.count > Self.scanLimit ? positions[key] : nil
    }

    /// The folded changes, in the order their children were first touched.
    var result: [Change] { changes.compactMap(\.change) }
}
