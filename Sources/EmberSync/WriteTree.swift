import DequeModule
import EmberCore

/// The pending user writes, in order, and their merged visible layer.
///
/// Writes are added as the user makes them and removed when the server confirms or refuses
/// them. `visibleWrites` is what the event data shows on top of the server's data; it is
/// rebuilt from the list only when a removed write overlapped others.
///
/// Sets made while nothing can look at the layer (the sync tree has no view) may be deferred:
/// they join the list only, and enter the layer and its index when something next asks
/// (``applyDeferred()``), or never, when the server answers them first. A loop of writes with
/// no listener (a script, an import, a benchmark's writer) then keeps no layer: adding a write
/// to the layer and taking it out again was two fifths of such a write's cost on the client.
public struct WriteTree: Sendable {
    /// The merged visible writes (hidden and fully shadowed writes are not in it), deferred
    /// ones included.
    /// - Complexity: O(1) with no deferred write; O(k d log n) for k deferred writes otherwise
    ///   (the sync tree applies them before it asks: see ``applyDeferred()``).
    public var visibleWrites: CompoundWrite {
        guard deferredCount > 0 else { return layer }
        var result = layer
        for write in deferredWrites { Self.add(write, to: &result) }
        return result
    }
    /// The layer of the writes that are not deferred.
    private var layer: CompoundWrite = .empty
    /// How many of the newest pending writes are deferred: sets (visible overwrites) in the
    /// list but not yet in `layer` nor in `visible`.
    public private(set) var deferredCount = 0
    /// Every pending write, oldest first, visible or not.
    /// A deque: writes are answered oldest first, and removing the first of an array would
    /// move every other.
    public private(set) var allWrites: Deque<WriteRecord> = []
    /// The visible writes that change each location, oldest first (an update is listed at each
    /// of its changed paths), and how many change a location below it: removing a write needs
    /// no scan of the list to know whether later writes shadow it or others overlap it.
    /// Kept only while two or more writes are pending (`isCounting`): a lone write, the
    /// common case of a client that waits for each answer, needs no bookkeeping.
    private var visible = VisibleWriteIndex()
    private var isCounting = false
    /// How many pending writes are hidden: while none is, the visible layer is every write, and
    /// a question that includes hidden writes is answered from it without a walk of the list.
    private var hiddenCount = 0
    /// The hidden writes by location (the visible ones are in `visible`): a transaction's
    /// input, computed without some writes, layers only the writes that overlap its location
    /// (issue 37: with thousands of transactions in flight, layering every pending write for
    /// each made them quadratic).
    private var hidden = VisibleWriteIndex()

    public init() {}

    /// Records a set.
    /// - Complexity: O(1) when deferred; O(d log n) otherwise.
    /// - Parameter deferred: whether a visible set may stay out of the layer until something
    ///   asks for it (nothing looks at the layer now).
    public mutating func addOverwrite(_ node: Node, at path: Path, id: WriteID, visibility: WriteVisibility, deferred: Bool = false) {
        precondition(allWrites.last.map { $0.id < id } ?? true, "writes must be added in increasing id order")
        if deferred && visibility == .visible {
            allWrites.append(WriteRecord(id: id, path: path, change: .overwrite(node), visibility: visibility))
            deferredCount += 1
            return
        }
        // The deferred writes are the newest: they go in first.
        applyDeferred()
        allWrites.append(WriteRecord(id: id, path: path, change: .overwrite(node), visibility: visibility))
        if visibility == .visible {
            layer.add(node, at: path)
        } else {
            hiddenCount += 1
            hidden.add(id, at: path)
        }
        countAdded(from: allWrites.count - 1)
    }

    /// Records an update.
    /// - Complexity: O(k d log n) for k changed paths.
    public mutating func addMerge(_ changes: [(Path, Node)], at path: Path, id: WriteID) {
        precondition(allWrites.last.map { $0.id < id } ?? true, "writes must be added in increasing id order")
        applyDeferred()
        allWrites.append(WriteRecord(id: id, path: path, change: .merge(changes), visibility: .visible))
        countAdded(from: allWrites.count - 1)
        Self.add(allWrites[allWrites.count - 1], to: &layer)
    }

    /// The writes before the deferred ones, oldest first: those the layer and the index hold.
    private var appliedWrites: Deque<WriteRecord>.SubSequence { allWrites.prefix(allWrites.count - deferredCount) }

    /// The deferred writes, oldest first.
    private var deferredWrites: Deque<WriteRecord>.SubSequence { allWrites.suffix(deferredCount) }

    /// Adds a set to `layer`.
    private static func add(_ write: WriteRecord, to layer: inout CompoundWrite) {
        switch write.change {
        case .overwrite(let node): layer.add(node, at: write.path)
        case .merge(let changes): for (relative, node) in changes { layer.add(node, at: write.path.appending(relative)) }
        }
    }

    /// Puts the deferred writes in the layer and its index, in order, as if each had been
    /// added there when made. The sync tree calls it before anything reads the layer.
    /// - Complexity: O(k d log n) for k deferred writes; O(1) with none.
    public mutating func applyDeferred() {
        guard deferredCount > 0 else { return }
        let first = allWrites.count - deferredCount
        deferredCount = 0
        for index in first..<allWrites.count { Self.add(allWrites[index], to: &layer) }
        countAdded(from: first)
    }

    /// The pending write with `id`.
    /// - Complexity: O(log w) for w pending writes.
    public func write(_ id: WriteID) -> WriteRecord? {
        position(of: id).map { allWrites[$0] }
    }

    /// Where the write with `id` is in the list (kept in increasing id order).
    private func position(of id: WriteID) -> Int? {
        // The oldest write, the one a server answers next: no search (a binary search of a
        // deque of 50,000 writes, twice an answer, cost 600 instructions, callgrind).
        guard !allWrites.isEmpty else { return nil }
        if allWrites[0].id == id { return 0 }
        var low = 0
        var high = allWrites.count
        while low < high {
            let middle = (low + high) / 2
            if allWrites[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low < allWrites.count && allWrites[low].id == id ? low : nil
    }

    /// Counts the visible writes from position `first` of the list on (those just added), and
    /// every visible write when counting starts (two or more are pending).
    private mutating func countAdded(from first: Int) {
        if isCounting {
            for index in first..<allWrites.count where allWrites[index].visibility == .visible { count(allWrites[index]) }
        } else if allWrites.count > 1 {
            for write in allWrites where write.visibility == .visible { count(write) }
            isCounting = true
        }
    }

    /// Lists a visible write at each path it changes (it is the newest there).
    /// - Complexity: O(k d) hash updates for k changed paths.
    private mutating func count(_ write: WriteRecord) {
        for path in write.changedPaths { visible.add(write.id, at: path) }
    }

    /// Takes a removed visible write off the lists.
    /// - Complexity: O(k d) hash updates, plus a search of the list at each changed path (O(1)
    ///   for the oldest write there).
    private mutating func uncount(_ write: WriteRecord) {
        for path in write.changedPaths { visible.remove(write.id, at: path) }
    }

    /// Removes a write that the server confirmed or refused.
    /// - Returns: whether the write may have been visible, so that views must be re-evaluated.
    /// - Complexity: O(log w + k d log n) for k changed paths (plus O(w) to close the gap in
    ///   the list, O(1) for the oldest), when later writes shadow each changed path that others
    ///   overlap (the common case of writes to one location answered oldest first); O(w k d log n)
    ///   when the visible layer is rebuilt: a changed path that no later write shadows and another
    ///   write overlaps (one below it, or an earlier one at or above it).
    public mutating func removeWrite(_ id: WriteID) -> Bool {
        guard let position = position(of: id) else { return false }
        if position >= allWrites.count - deferredCount {
            // Deferred: in neither the layer nor the index, and nothing has looked since it was
            // made (whatever looks applies the deferred writes first).
            allWrites.remove(at: position)
            deferredCount -= 1
            if allWrites.isEmpty { forgetAll() }
            return false
        }
        // An older write: the layer and the index are those of the writes before the deferred
        // ones, and stay so without it; the deferred ones go on top of it when applied.
        let removed = allWrites.remove(at: position)
        if removed.visibility == .hidden {
            hiddenCount -= 1
            hidden.remove(removed.id, at: removed.path)
        }
        if allWrites.isEmpty {
            // The last pending write: nothing is left to show or to count.
            forgetAll()
            return removed.visibility == .visible
        }
        guard removed.visibility == .visible else { return false }
        defer { uncount(removed) }
        // For each changed path, in one walk of the index: whether a visible write other than
        // this one changes it, a location above it or one below it; whether a later one changes
        // it or a location above it (it decides what shows there).
        let changed = removed.changedPaths
        let meetings = changed.map { visible.meeting($0, removing: removed.id) }
        if !meetings.contains(where: \.othersOverlap) {
            // Alone where it wrote: nothing shadows it and it shadows nothing.
            removeFromVisibleLayer(changed)
            return true
        }
        // What later writes change again showed theirs already, and still does.
        let unshadowed = zip(changed, meetings).filter { !$0.1.newer }
        if unshadowed.isEmpty { return false }
        if unshadowed.contains(where: { $0.1.othersOverlap }) {
            // Other writes below, or earlier ones at or above: what shows there is theirs again.
            layer = Self.layer(appliedWrites, at: .root) { $0.visibility == .visible }
        } else {
            removeFromVisibleLayer(unshadowed.map(\.0))
        }
        return true
    }

    /// Takes `paths` (a removed write's, that no later write shadows) out of the visible layer.
    private mutating func removeFromVisibleLayer(_ paths: [Path]) {
        for path in paths { layer.remove(at: path) }
    }

    /// No write is pending: nothing is left to show or to count.
    private mutating func forgetAll() {
        layer = .empty
        deferredCount = 0
        if isCounting {
            visible.removeAll()
            isCounting = false
        }
    }

    /// Up to how many pending writes ``writes(overlapping:)`` scans the list instead of asking
    /// the indexes.
    static let scannedWrites = 32

    /// Whether a visible pending write changes `path`, a location above it or one below it:
    /// whether what shows there is (in part) optimistic.
    /// - Complexity: O(1) with no visible write pending; else as ``writes(overlapping:)``.
    public func hasVisibleWrite(overlapping path: Path) -> Bool {
        (deferredCount > 0 || !layer.isEmpty) && writes(overlapping: path).contains { $0.visibility == .visible }
    }

    /// The pending writes at `path`, above it or below it, oldest first.
    /// - Complexity: O(d + m log m) for m such writes while more than ``scannedWrites`` are
    ///   pending; O(w) for the w pending writes otherwise.
    private func writes(overlapping path: Path) -> [WriteRecord] {
        // A short list is scanned: the indexes pay off only with many pending writes (the
        // common case of a transaction or two in flight would pay their hashing for nothing).
        // The index lacks deferred writes: the list is scanned while there are any.
        guard isCounting, deferredCount == 0, allWrites.count > Self.scannedWrites else {
            return allWrites.filter { $0.path.contains(path) || path.contains($0.path) }
        }
        var ids: [WriteID] = []
        visible.appendOverlapping(path, to: &ids)
        hidden.appendOverlapping(path, to: &ids)
        ids.sort()
        var result: [WriteRecord] = []
        result.reserveCapacity(ids.count)
        var last: WriteID?
        for id in ids where id != last {
            last = id
            if let write = write(id) { result.append(write) }
        }
        return result
    }

    /// The writes selected by `include`, layered in order, relative to `root`.
    /// - Complexity: O(w k d log n).
    static func layer(_ writes: some Sequence<WriteRecord>, at root: Path, include: (WriteRecord) -> Bool) -> CompoundWrite {
        var result = CompoundWrite.empty
        for write in writes where include(write) {
            let changes: [(Path, Node)]
            switch write.change {
            case .overwrite(let node): changes = [(write.path, node)]
            case .merge(let merge): changes = merge.map { (write.path.appending($0.0), $0.1) }
            }
            for (path, node) in changes {
                if let relative = root.relative(to: path) {
                    result = result.adding(node, at: relative)
                } else if let relative = path.relative(to: root) {
                    result = result.adding(node.child(at: relative), at: .root)
                }
            }
        }
        return result
    }

    // MARK: Computing event data

    /// The value at `path` when the visible writes alone determine it.
    /// - Complexity: O(d log n).
    public func shadowingWrite(at path: Path) -> Node? {
        visibleWrites.completeNode(at: path)
    }

    /// The complete event data at `path`: the writes over `completeServerCache`, or `nil` when
    /// neither the server data nor the writes make it complete.
    ///
    /// - Parameters:
    ///   - excluding: writes to leave out (a transaction computing its input).
    ///   - includingHidden: whether hidden writes count too.
    /// - Complexity: O(d log n) with no writes excluded, no hidden write pending (or hidden
    ///   writes not asked for) and no writes below `path`; O(w k d log n) for w pending writes
    ///   otherwise.
    public func completeEventCache(
        at path: Path, server completeServerCache: Node?, excluding: Set<WriteID> = [], includingHidden: Bool = false
    ) -> Node? {
        if excluding.isEmpty && (!includingHidden || hiddenCount == 0) {
            // The visible layer is every write asked for.
            // One walk down `path`: a write at or above it is the merge's root value.
            let merge = visibleWrites.child(at: path)
            if let shadowing = merge.tree.value { return shadowing }
            if merge.isEmpty { return completeServerCache }
            if completeServerCache == nil && !merge.hasCompleteWrite(at: .root) { return nil }
            return merge.apply(to: completeServerCache ?? .empty)
        }
        let merge = visibleWrites.child(at: path)
        if !includingHidden && merge.isEmpty { return completeServerCache }
        if !includingHidden && completeServerCache == nil && !merge.hasCompleteWrite(at: .root) { return nil }
        let layered = Self.layer(writes(overlapping: path), at: path) { write in
            (write.visibility == .visible || includingHidden) && !excluding.contains(write.id)
        }
        if completeServerCache == nil && !layered.hasCompleteWrite(at: .root) { return nil }
        return layered.apply(to: completeServerCache ?? .empty)
    }

    /// The children at `path` whose event data is complete: the writes over the complete
    /// server children given, plus children the writes alone determine.
    /// - Complexity: O(n log n) for n children.
    public func completeEventChildren(at path: Path, server completeServerChildren: Node?) -> Node {
        let merge = visibleWrites.child(at: path)
        if let topLevel = merge.tree.value {
            // A write shadows everything here: its children are complete.
            if topLevel.isLeaf { return .empty }
            return topLevel.withPriority(nil)
        }
        var result = Node.empty
        if let completeServerChildren {
            for child in completeServerChildren.children {
                result.setChild(child.key, merge.child(at: Path(keys: [child.key])).apply(to: child.node))
            }
        }
        for child in merge.completeChildren {
            result.setChild(child.key, child.node)
        }
        return result
    }

    /// What the event data at `path`/`childPath` becomes after the server changed it, or `nil`
    /// when a write shadows the location completely (no events).
    /// - Complexity: O(d log n) when no write is below the location.
    func eventCacheAfterServerOverwrite(at path: Path, childPath: Path, existingServer: Node) -> Node? {
        let fullPath = path.appending(childPath)
        if visibleWrites.hasCompleteWrite(at: fullPath) { return nil }
        let childMerge = visibleWrites.child(at: fullPath)
        let server = existingServer.child(at: childPath)
        if childMerge.isEmpty { return server }
        return childMerge.apply(to: server)
    }

    /// The complete event data for the child `key` of `path`, or `nil` when it is not known.
    /// - Complexity: O(d log n).
    func completeChild(at path: Path, _ key: ChildKey, server: CacheNode) -> Node? {
        let childPath = path.child(key)
        let childMerge = visibleWrites.child(at: childPath)
        if let shadowing = childMerge.tree.value { return shadowing }
        guard server.isComplete(forChild: key) else { return nil }
        let serverChild = server.node.child(key)
        return childMerge.isEmpty ? serverChild : childMerge.apply(to: serverChild)
    }

    /// The child of `path` that follows `position` in `index` order (or precedes it, when
    /// `reverse`), in the event data the writes and `completeServerData` give; used to refill a
    /// limited window.
    /// - Complexity: O(log n) for key and priority order when no write is below `path`.
    func child(at path: Path, after position: NamedNode, in index: Index, reverse: Bool, server completeServerData: Node?) -> NamedNode? {
        let merge = visibleWrites.child(at: path)
        let node: Node
        if let shadowing = merge.completeNode(at: .root) {
            node = shadowing
        } else if let completeServerData {
            node = merge.isEmpty ? completeServerData : merge.apply(to: completeServerData)
        } else {
            return nil
        }
        if node.isEmpty || node.isLeaf { return nil }
        return reverse ? node.child(before: position, in: index) : node.child(after: position, in: index)
    }
}
