import EmberCore

/// Collects the child changes of one operation on one view, folding successive changes to the
/// same child into one (added then removed cancels out; removed then added is a change).
struct ChildChangeAccumulator {
    private var changes: [ChildKey: Change] = [:]
    private var order: [ChildKey] = []

    /// Records a child_added, child_removed or child_changed.
    /// - Complexity: O(1) amortised.
    mutating func track(_ change: Change) {
        guard let key = change.childKey else { preconditionFailure("only child changes are tracked") }
        guard let previous = changes[key] else {
            changes[key] = change
            order.append(key)
            return
        }
        switch (previous, change) {
        case (.childRemoved(_, let old), .childAdded(_, let node)):
            changes[key] = .childChanged(key, node, old: old)
        case (.childAdded, .childRemoved):
            changes[key] = nil
        case (.childChanged(_, _, let old), .childRemoved):
            changes[key] = .childRemoved(key, old: old)
        case (.childAdded, .childChanged(_, let node, _)):
            changes[key] = .childAdded(key, node)
        case (.childChanged(_, _, let old), .childChanged(_, let node, _)):
            changes[key] = .childChanged(key, node, old: old)
        default:
            preconditionFailure("illegal change \(change) after \(previous) for \(key)")
        }
    }

    /// The folded changes, in the order their children were first touched.
    var result: [Change] { order.compactMap { changes[$0] } }
}
