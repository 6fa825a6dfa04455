import EmberCore

/// Collects the child changes of one operation on one view, folding successive changes to the
/// same child into one (added then removed cancels out; removed then added is a change).
struct ChildChangeAccumulator {
    /// Each child touched, in the order first touched, with its folded change; a child whose
    /// changes cancelled out leaves the list. Kept as the changes themselves, so that the
    /// result is this list, handed over without a copy (``takeResult()``).
    private var changes: [Change] = []
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
        changes = distinct
        isIndexed = distinct.count <= Self.scanLimit
    }

    /// Whether nothing was recorded (or everything recorded cancelled out).
    var isEmpty: Bool { changes.isEmpty }

    /// Records a child_added, child_removed or child_changed.
    /// - Complexity: O(1) on average; O(n) for the change that cancels a child's earlier one
    ///   out (the list closes over it), and once for the first fold after a whole-node
    ///   comparison of n children.
    mutating func track(_ change: Change) {
        guard let key = change.childKey else { preconditionFailure("only child changes are tracked") }
        if !isIndexed {
            reindex()
        }
        guard let position = position(of: key) else {
            if changes.count >= Self.scanLimit { positions[key] = changes.count }
            changes.append(change)
            return
        }
        switch (changes[position], change) {
        case (.childRemoved(_, let old), .childAdded(_, let node)):
            changes[position] = .childChanged(key, node, old: old)
        case (.childAdded, .childRemoved):
            // Added then removed: nothing happened to the child, which leaves the list (as it
            // leaves Firebase's map, `changeMap.delete`, ChildChangeAccumulator.ts: touched
            // again, it comes last).
            changes.remove(at: position)
            if changes.count > Self.scanLimit || !positions.isEmpty { reindex() }
        case (.childChanged(_, _, let old), .childRemoved):
            changes[position] = .childRemoved(key, old: old)
        case (.childAdded, .childChanged(_, let node, _)):
            changes[position] = .childAdded(key, node)
        case (.childChanged(_, _, let old), .childChanged(_, let node, _)):
            changes[position] = .childChanged(key, node, old: old)
        case (let previous, _):
            preconditionFailure("illegal change \(change) after \(previous) for \(key)")
        }
    }

    /// Makes `positions` hold the position of every child past the first ``scanLimit``.
    private mutating func reindex() {
        positions.removeAll(keepingCapacity: true)
        if changes.count > Self.scanLimit {
            for position in Self.scanLimit..<changes.count { positions[changes[position].childKey!] = position }
        }
        isIndexed = true
    }

    private func position(of key: ChildKey) -> Int? {
        for position in 0..<min(changes.count, Self.scanLimit) where changes[position].childKey == key {
            return position
        }
        return changes.count > Self.scanLimit ? positions[key] : nil
    }

    /// The folded changes, in the order their children were first touched; the accumulator is
    /// used up.
    consuming func takeResult() -> [Change] { changes }
}
