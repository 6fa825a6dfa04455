import EmberCore

extension WireChange {
    /// `changes` (relative to one location) without what they would write at or below
    /// `forgotten` (relative to the same location): a change at or below it is dropped; a change
    /// above it that writes an object is split into one change per child first, so that the
    /// rest of the object is still written; a leaf above it stays whole.
    ///
    /// How an onDisconnect `cancel()` below a queued write works in Firebase
    /// (firebase-js-sdk `OnDisconnect.ts` `cancel()`; `SparseSnapshotTree.ts` `forget`): after
    /// `p.onDisconnect().set({a: 1, b: 2})` and `p/a.onDisconnect().cancel()`, `b` is still
    /// written, and `a` is not.
    /// - Complexity: O(c + d·k) for c changes, a forgotten path d keys deep and objects of k
    ///   children split on the way.
    public static func forgetting(_ forgotten: Path, in changes: [WireChange]) -> [WireChange] {
        var result: [WireChange] = []
        for change in changes {
            if forgotten.contains(change.path) { continue }
            guard change.path.contains(forgotten), !change.node.isLeaf, !change.node.isEmpty else {
                result.append(change)
                continue
            }
            let split = change.node.children.map { WireChange(change.path.child($0.key), $0.node) }
            result += forgetting(forgotten, in: split)
        }
        return result
    }

    /// What is left of a queued write at `location` (its `changes`, relative to it; a set is one
    /// change at the root) after a cancel at `cancelled`: `nil` when nothing is left, `changes`
    /// unchanged when the cancel does not reach it, else the changes of what remains (see
    /// ``forgetting(_:in:)``). Server and client both queue onDisconnect writes and apply a
    /// cancel to them with this.
    /// - Complexity: as ``forgetting(_:in:)``.
    public static func remaining(of changes: [WireChange], at location: Path, afterCancelling cancelled: Path) -> [WireChange]? {
        if cancelled.contains(location) { return nil }
        guard let relative = location.relative(to: cancelled) else { return changes }
        let remaining = forgetting(relative, in: changes)
        return remaining.isEmpty ? nil : remaining
    }
}
