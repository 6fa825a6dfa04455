import EmberCore

/// Collects the child changes of one operation on one view, folding successive changes to the
/// same child into one (added then removed cancels out; removed then added is a change).
struct ChildChangeAccumulator {
    /// The changes in the order their children were first touched; `nil` where two cancelled.
    private var changes: [Change?] = []
    /// Where each child's change is in `changes`; built only once a second change may need
    /// folding, so that a whole-node comparison of a million children skips the hashing.
    private var positions: [ChildKey: Int] = [:]
    private var isIndexed = true

    init() {}

    /// An accumulator holding changes to distinct children, as a whole-node comparison yields.
    init(distinct: [Change]) {
        changes = distinct
        isIndexed = distinct.isEmpty
    }

    /// Whether nothing was recorded.
    var isEmpty: Bool { changes.isEmpty }

    /// Records a child_added, child_removed or child_changed.
    /// - Complexity: O(1) amortised (O(c) once after ``init(distinct:)`` with c changes).
    mutating func track(_ change: Change) {
        guard let key = change.childKey else { preconditionFailure("only child changes are tracked") }
        if !isIndexed {
            for (position, change) in changes.enumerated() {
                if let key = change?.childKey { positions[key] = position }
            }
            isIndexed = true
        }
        guard let position = positions[key] else {
            positions[key] = changes.count
            changes.append(change)
            return
        }
        guard let previous = changes[position] else {
            changes[position] = change
            return
        }
        switch (previous, change) {
        case (.childRemoved(_, let old), .childAdded(_, let node)):
            changes[position] = .childChanged(key, node, old: old)
        case (.childAdded, .childRemoved):
            changes[position] = nil
        case (.childChanged(_, _, let old), .childRemoved):
            changes[position] = .childRemoved(key, old: old)
        case (.childAdded, .childChanged(_, let node, _)):
            changes[position] = .childAdded(key, node)
        case (.childChanged(_, _, let old), .childChanged(_, let node, _)):
            changes[position] = .childChanged(key, node, old: old)
        default:
            preconditionFailure("illegal change \(change) after \(previous) for \(key)")
        }
    }

    /// The folded changes, in the order their children were first touched.
    var result: [Change] { changes.compactMap { $0 } }
}
