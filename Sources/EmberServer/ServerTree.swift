import EmberCore
import EmberRules
import EmberStorage

/// The server's tree: whole in memory without a store; with one, loaded a location at a time
/// from it and kept within a budget of bytes.
///
/// With a store, opening reads no data. Every operation first loads the locations it touches
/// (``ensureLoaded(_:)``: one range of rows, ordered by path), and rules read through the tree
/// (``RuleTreeReader``), loading what they read. A loaded location is a region
/// (``LoadedRegions``); what lies outside every region is not known in memory, even where a
/// partial node stands on the way to a region (its priority and its other children are in the
/// store). A location read while locations below it are loaded is read from the store with the
/// loaded ones laid over it, since they may hold this tick's changes, not committed yet.
///
/// Past the budget (``capacity``: the bytes of the rows loaded, as stored), the server evicts
/// the least recently used regions that no listen holds, once a tick has committed
/// (``evict(keeping:dropped:)``): evicted data is exactly what the store holds.
///
/// What each location a tick writes held before it (``TickShapes``) is recorded as the writes
/// come, for the store's commit; a tick whose commit fails is undone by dropping the regions it
/// wrote (``undo(_:)``), which are read again from the store as it was.
///
/// Confined to the engine, like the ``Server`` that owns it. `@unchecked Sendable` only so that
/// a rules check (a ``RuleData``, a value) can read through it while it runs.
final class ServerTree: RuleTreeReader, @unchecked Sendable {
    /// The data in memory: every region whole, and partial nodes on the way to them.
    private(set) var root: Node = .empty
    /// Where the data is kept (`nil`: all of it is in memory).
    let store: ServerStore?
    /// How many bytes of loaded rows the tree keeps before it evicts.
    var capacity: Int
    /// The bytes the regions are counted for.
    private(set) var loadedBytes = 0
    /// How many locations were read from the store.
    private(set) var loadCount = 0
    /// How many regions were evicted.
    private(set) var evictionCount = 0
    /// The rows left out of the locations read, because they would not pass a write's checks.
    private(set) var badRows: [BadRow] = []
    /// Called with the bad rows of each location read that had some.
    var onBadRows: (([BadRow]) -> Void)?

    private var regions = LoadedRegions() {
        didSet { lastCovered = nil }
    }
    /// The region ``ensureLoaded(_:)`` last found covering the location it was asked for, with
    /// that location (a priority path: its owner), while no region is added or removed: the
    /// write that follows (``set(_:at:)``) and writes again to the same location find it
    /// without a walk down the regions (two hashed lookups a write of `a/b`, callgrind).
    private var lastCovered: (path: Path, entry: LoadedRegions.Entry, depth: Int)?
    private var uses: UInt64 = 0

    /// The region ``lastCovered`` holds, when it was found for `owner`.
    /// - Complexity: O(d) for a path of d keys.
    private func rememberedCovering(of owner: Path) -> (entry: LoadedRegions.Entry, depth: Int)? {
        guard let lastCovered, lastCovered.path == owner else { return nil }
        return (lastCovered.entry, lastCovered.depth)
    }
    /// What the tick's writes found, until ``endChanges()``.
    private var shapes = TickShapes()
    private var failure: StoreError?

    /// A tree that is all in memory (`store == nil`) or read from `store` as it is used.
    init(store: ServerStore?, capacity: Int) {
        self.store = store
        self.capacity = capacity
    }

    /// The number of regions loaded.
    var regionCount: Int { regions.all().count }

    // MARK: Loading

    /// Makes the data at `path` whole in memory (a priority path: its owner's).
    /// - Throws: ``StoreError`` when the store cannot be read.
    /// - Complexity: O(d) when it is loaded; else a store read of its rows, plus the regions
    ///   below it laid over them.
    func ensureLoaded(_ path: Path) throws(StoreError) {
        guard let store else { return }
        uses += 1
        // A priority path is covered by its owner's region (none is ever marked at it).
        let owner = path.isPriority ? path.parent ?? .root : path
        if let covering = rememberedCovering(of: owner) {
            covering.entry.region!.lastUse = uses
            return
        }
        let interiorDepth: Int
        let held: [(path: Path, bytes: Int)]
        switch regions.look(owner) {
        case .covered(let entry, let depth):
            entry.region!.lastUse = uses
            lastCovered = (owner, entry, depth)
            return
        case .outside(let depth, let entry):
            interiorDepth = depth
            // The regions below are in memory, perhaps changed this tick (memory is newer than
            // the store): their rows are not read, and memory's data is laid in their place.
            held = entry.map(regions.regions(below:)) ?? []
        }
        // Ancestors with a region below are known to hold no leaf: their rows are not looked up.
        let stored = try store.loadLocation(path, skipping: held.map(\.path), interiorAncestors: interiorDepth)
        loadCount += 1
        var node = stored.node
        let below = stored.reach == .asked ? held : regions.regions(below: stored.path)
        var heldBytes = 0
        for region in below {
            node.set(root.child(at: stored.path.appending(region.path)), at: region.path)
            heldBytes += region.bytes
        }
        // A priority whose node's other rows were all skipped is the node's when memory's data
        // fills it (as a tree read whole would have it: a priority stays with data).
        for (relative, priority) in stored.heldPriorities where !shapes.wasEmptied(stored.path.appending(relative)) {
            let held = node.child(at: relative)
            if !held.isEmpty { node.set(held.withPriority(priority), at: relative) }
        }
        // A new location (nothing stored, nothing in memory): the tree has nothing to change.
        if !node.isEmpty || !root.child(at: stored.path).isEmpty { root.set(node, at: stored.path) }
        // Memory's data below counts as the region's when its rows were not read: skipped, or
        // none in the store (an empty location around the one asked for). Below a leaf they
        // were read, and counted in the location's bytes.
        let skippedBytes = stored.reach == .leafAbove ? 0 : heldBytes
        let absorbed = regions.insert(stored.path, .init(bytes: stored.bytes + skippedBytes, lastUse: uses))
        loadedBytes += stored.bytes + skippedBytes - absorbed
        if stored.bytes >= FreedMemory.largeLoadBytes { FreedMemory.release() }
        if !stored.badRows.isEmpty {
            badRows += stored.badRows
            onBadRows?(stored.badRows)
        }
    }

    /// Whether the data at `path` is whole in memory.
    /// - Complexity: O(d).
    func isLoaded(_ path: Path) -> Bool {
        store == nil || regions.covering(path) != nil
    }

    /// The data at `path`, loaded first when it is not in memory. A read that fails is
    /// answered from memory (perhaps partial) and reported by ``takeFailure()``.
    func node(at path: Path) -> Node {
        do {
            try ensureLoaded(path)
        } catch {
            if failure == nil { failure = error }
        }
        return root.child(at: path)
    }

    /// The first store read that failed in ``node(at:)`` since the last call, if any.
    func takeFailure() -> StoreError? {
        defer { failure = nil }
        return failure
    }

    // MARK: Writing

    /// Sets the data at `path`, which must be loaded (``ensureLoaded(_:)``).
    /// - Complexity: O(d log n), plus O(size) of the old and new data to count their bytes
    ///   when a store is attached.
    func set(_ node: Node, at path: Path) {
        guard store != nil else {
            root.set(node, at: path)
            return
        }
        let owner = path.isPriority ? path.parent ?? .root : path
        let covering = rememberedCovering(of: owner) ?? regions.covering(owner)
        assert(covering != nil, "\(path) is written before it is loaded")
        let old = root.child(at: owner)
        shapes.willWrite(at: path, in: root, old: path.isPriority ? nil : old, wholeFrom: covering?.depth ?? path.count + 1)
        let prefix = Self.rowPathBytes(owner)
        let before = Self.estimatedBytes(of: old, pathBytes: prefix)
        root.set(node, at: path)
        // The owner's node now: the node written, unless a priority was.
        let now = path.isPriority ? root.child(at: owner) : node
        let delta = Self.estimatedBytes(of: now, pathBytes: prefix) - before
        covering?.entry.region!.bytes += delta
        loadedBytes += delta
        if node.isEmpty, !path.isPriority, let covering, covering.depth > 0 { noteEmptiedAncestors(of: owner, above: covering.depth) }
    }

    /// After a deletion inside the region whose location is `depth` keys down `path`: notes
    /// each ancestor of that location, from the nearest up, that holds no data any more
    /// (``TickShapes/noteEmptied(_:)``). Such an ancestor is not whole in memory, and its
    /// priority is only in the store: as Firebase applies each write in turn, the priority goes
    /// with its data, and a later write of the tick below it makes a new node without one.
    /// A store that cannot be read leaves the ancestor as it was (not noted).
    /// - Complexity: nothing when the region's location holds data; else one store read per
    ///   ancestor left empty (``ServerStore/hasData(below:besides:ignoringPriorityOf:)``).
    private func noteEmptiedAncestors(of path: Path, above depth: Int) {
        guard let store, root.child(at: Path(keys: Array(path.keys.prefix(depth)))).isEmpty else { return }
        var ignored: Set<Path> = []
        var level = depth - 1
        while level >= 0 {
            let ancestor = Path(keys: Array(path.keys.prefix(level)))
            guard root.child(at: ancestor).isEmpty else { return }
            // Its own priority row, and those of the emptied locations below it, hold no data.
            ignored.insert(ancestor)
            let holdsData = (try? store.hasData(below: ancestor, besides: regions.region(holdingRow:), ignoringPriorityOf: ignored)) ?? true
            if holdsData { return }
            shapes.noteEmptied(ancestor)
            level -= 1
        }
    }

    /// Ends the tick's changes.
    /// - Returns: what the locations written held before them (empty when none were made).
    func endChanges() -> TickShapes {
        defer { shapes = TickShapes() }
        return shapes
    }

    /// Undoes the changes of a tick whose commit failed (`changes`, from ``endChanges()``): the
    /// regions it wrote, or that hold what it wrote, are dropped and read again from the store
    /// when used, as the rolled-back commit left them. `dropped` is called with each.
    /// - Complexity: O(w·r) for w locations written and r regions.
    func undo(_ changes: TickShapes, dropped: (Path) -> Void) {
        for path in changes.written {
            let owner = path.isPriority ? path.parent ?? .root : path
            forget(touching: owner, dropped: dropped)
        }
    }

    /// Drops from memory every region at, above or below `path` (the store's data there was
    /// replaced under the tree): each is read again when used. Only between ticks.
    /// - Complexity: O(r) for r regions.
    func forget(touching path: Path, dropped: (Path) -> Void = { _ in }) {
        guard store != nil else { return }
        precondition(shapes.isEmpty, "forget between ticks")
        for (location, region) in regions.all() where location.contains(path) || path.contains(location) {
            regions.remove(location)
            loadedBytes -= region.bytes
            root.set(.empty, at: location)
            dropped(location)
        }
    }

    // MARK: Eviction

    /// Evicts the least recently used regions until the loaded bytes are within three quarters
    /// of the capacity, skipping those `kept` holds (`kept(path)`: `.whole` keeps it; `.below`
    /// keeps only what lies below it, so it is split into its children). `dropped` is called
    /// with each location evicted. Only between ticks: evicted data must be as committed.
    /// - Complexity: O(r log r) for r regions, plus O(size) of each region split.
    func evict(keeping kept: (Path) -> Retention, dropped: (Path) -> Void) {
        guard store != nil, shapes.isEmpty, loadedBytes > capacity else { return }
        let target = capacity / 4 * 3
        var queue = regions.all().sorted { $0.region.lastUse < $1.region.lastUse }
        var next = 0
        while next < queue.count, loadedBytes > target {
            let (path, region) = queue[next]
            next += 1
            switch kept(path) {
            case .whole:
                continue
            case .below:
                // Listened to below: its children become regions of their own, used when it was.
                regions.remove(path)
                loadedBytes -= region.bytes
                let node = root.child(at: path)
                var children: [(path: Path, region: LoadedRegions.Region)] = []
                for child in node.children {
                    let location = path.child(child.key)
                    let bytes = Self.estimatedBytes(of: child.node, pathBytes: Self.rowPathBytes(location))
                    regions.insert(location, .init(bytes: bytes, lastUse: region.lastUse))
                    loadedBytes += bytes
                    children.append((location, .init(bytes: bytes, lastUse: region.lastUse)))
                }
                // Leaves and empty locations have no children: nothing of theirs stays.
                if node.childCount == 0 { root.set(.empty, at: path) }
                queue.insert(contentsOf: children, at: next)
            case .none:
                regions.remove(path)
                loadedBytes -= region.bytes
                root.set(.empty, at: path)
                evictionCount += 1
                dropped(path)
            }
        }
    }

    /// What a listen holds of a region.
    enum Retention {
        /// Nothing: the region may go.
        case none
        /// Locations below it: it may go but for them.
        case below
        /// All of it.
        case whole
    }

    // MARK: Sizes

    /// The bytes of `path` as a row path (keys joined by `/`).
    static func rowPathBytes(_ path: Path) -> Int {
        var bytes = max(0, path.count - 1)
        for key in path.keys { bytes += key.name.utf8.count }
        return bytes
    }

    /// About the bytes of the rows that hold `node` at a location whose row path has
    /// `pathBytes` bytes: what ``ServerStore/loadLocation(_:)`` counts when it reads them.
    /// - Complexity: O(size of `node`).
    static func estimatedBytes(of node: Node, pathBytes: Int) -> Int {
        var bytes = 0
        if let priority = node.priority { bytes += pathBytes + 10 + leafBytes(priority.leafValue) }
        if let leaf = node.leafValue { return bytes + pathBytes + leafBytes(leaf) }
        for child in node.children {
            bytes += estimatedBytes(of: child.node, pathBytes: pathBytes + 1 + child.key.name.utf8.count)
        }
        return bytes
    }

    private static func leafBytes(_ leaf: LeafValue) -> Int {
        switch leaf {
        case .bool(let value): value ? 4 : 5
        case .int: 8
        case .double: 12
        case .string(let text): text.utf8.count + 2
        case .deferred: 16
        }
    }
}
