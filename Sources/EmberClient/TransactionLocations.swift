import EmberCore

/// Where a client's running transactions are: for each location, the transactions at it (in
/// the order they started) and how many of those at it and below it wait or are in flight.
///
/// ``TransactionQueue`` asks it which transactions overlap a location and where a batch can
/// go, walking the path once instead of scanning every running transaction (issue 37: 4,000
/// transactions in flight on distinct locations took 25.9 s, each question a scan of all). A
/// tree of keys, as firebase-js-sdk's `transactionQueueTree_` (`Repo.ts`) and Ember's
/// `VisibleWriteIndex`.
struct TransactionLocations {
    /// The transactions at exactly this location, oldest first.
    private var here: [TransactionID] = []
    /// How many of `here` wait to be sent, and how many are in flight or in doubt.
    private var waiting = 0
    private var outstanding = 0
    /// How many transactions strictly below this location wait, and how many are outstanding.
    private var waitingBelow = 0
    private var outstandingBelow = 0
    private var children: [ChildKey: TransactionLocations] = [:]

    /// Whether no transaction is at or below this location.
    private var isEmpty: Bool { here.isEmpty && waitingBelow == 0 && outstandingBelow == 0 }

    /// What a transaction is, for the counts.
    enum Standing {
        case waiting
        case outstanding
    }

    /// Lists the new transaction `id` (the newest), waiting, at `path`.
    /// - Complexity: O(d) for a path of depth d.
    mutating func add(_ id: TransactionID, at path: Path) {
        add(id, at: path.keys[...])
    }

    private mutating func add(_ id: TransactionID, at keys: ArraySlice<ChildKey>) {
        guard let first = keys.first else {
            here.append(id)
            waiting += 1
            return
        }
        waitingBelow += 1
        children[first, default: TransactionLocations()].add(id, at: keys.dropFirst())
    }

    /// Takes transaction `id`, `standing` as given, off the list at `path`.
    /// - Complexity: O(d) for a path of depth d, plus a search of the transactions at `path`.
    mutating func remove(_ id: TransactionID, at path: Path, standing: Standing) {
        _ = remove(id, at: path.keys[...], standing: standing)
    }

    /// Returns whether this location is left empty.
    private mutating func remove(_ id: TransactionID, at keys: ArraySlice<ChildKey>, standing: Standing) -> Bool {
        guard let first = keys.first else {
            guard let index = here.firstIndex(of: id) else { return isEmpty }
            here.remove(at: index)
            switch standing {
            case .waiting: waiting -= 1
            case .outstanding: outstanding -= 1
            }
            return isEmpty
        }
        guard let emptied = children[first]?.remove(id, at: keys.dropFirst(), standing: standing) else { return isEmpty }
        switch standing {
        case .waiting: waitingBelow -= 1
        case .outstanding: outstandingBelow -= 1
        }
        if emptied { children[first] = nil }
        return isEmpty
    }

    /// Counts `count` transactions at `path` as `standing` instead of the other.
    /// - Complexity: O(d) for a path of depth d.
    mutating func move(_ count: Int, at path: Path, to standing: Standing) {
        move(count, at: path.keys[...], to: standing)
    }

    private mutating func move(_ count: Int, at keys: ArraySlice<ChildKey>, to standing: Standing) {
        let sign = standing == .outstanding ? 1 : -1
        guard let first = keys.first else {
            outstanding += sign * count
            waiting -= sign * count
            return
        }
        outstandingBelow += sign * count
        waitingBelow -= sign * count
        children[first]?.move(count, at: keys.dropFirst(), to: standing)
    }

    /// The transactions at `path`, above it and below it, in no particular order.
    /// - Complexity: O(d + m) for a path of depth d and m transactions at or below it.
    func overlapping(_ path: Path) -> [TransactionID] {
        var result: [TransactionID] = []
        var node = self
        for key in path.keys {
            result += node.here
            guard let child = node.children[key] else { return result }
            node = child
        }
        node.appendAll(to: &result)
        return result
    }

    /// The transactions at and below `path`, in the order they started.
    /// - Complexity: O(d + m log m) for m transactions at or below it.
    func all(at path: Path) -> [TransactionID] {
        var node = self
        for key in path.keys {
            guard let child = node.children[key] else { return [] }
            node = child
        }
        var result: [TransactionID] = []
        node.appendAll(to: &result)
        return result.sorted()
    }

    private func appendAll(to result: inout [TransactionID]) {
        result += here
        guard waitingBelow + outstandingBelow > 0 else { return }
        for child in children.values { child.appendAll(to: &result) }
    }

    /// The locations of the batches that may go now among the waiting transactions that
    /// overlap `path`: the highest location of a waiting transaction above or at `path` when
    /// there is one, else each highest such location below it; each only when no transaction
    /// at it, above it or below it is outstanding (firebase-js-sdk `repoSendReadyTransactions`:
    /// a queue goes when every transaction in it is run and none is sent).
    /// - Complexity: O(d) when a waiting transaction is at or above `path`; otherwise O(d + s)
    ///   for s locations below `path` with waiting transactions under them.
    func batchRoots(near path: Path) -> [Path] {
        var node = self
        var keys: [ChildKey] = []
        var outstandingAbove = false
        for key in path.keys {
            if node.waiting > 0 { return node.isReady(outstandingAbove: outstandingAbove) ? [Path(keys: keys)] : [] }
            outstandingAbove = outstandingAbove || node.outstanding > 0
            guard let child = node.children[key] else { return [] }
            node = child
            keys.append(key)
        }
        if node.waiting > 0 { return node.isReady(outstandingAbove: outstandingAbove) ? [Path(keys: keys)] : [] }
        var roots: [Path] = []
        node.collectRoots(keys: &keys, outstandingAbove: outstandingAbove || node.outstanding > 0, into: &roots)
        return roots
    }

    private func isReady(outstandingAbove: Bool) -> Bool {
        !outstandingAbove && outstanding == 0 && outstandingBelow == 0
    }

    private func collectRoots(keys: inout [ChildKey], outstandingAbove: Bool, into roots: inout [Path]) {
        guard waitingBelow > 0 else { return }
        for (key, child) in children where child.waiting + child.waitingBelow > 0 {
            keys.append(key)
            if child.waiting > 0 {
                if child.isReady(outstandingAbove: outstandingAbove) { roots.append(Path(keys: keys)) }
            } else {
                child.collectRoots(keys: &keys, outstandingAbove: outstandingAbove || child.outstanding > 0, into: &roots)
            }
            keys.removeLast()
        }
    }
}
