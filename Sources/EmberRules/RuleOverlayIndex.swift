import EmberCore
import Synchronization

/// Where the writes of a large overlay (``RuleData/overlay(_:_:)``: a merge's new data) are, by
/// location, and the new data already looked up: so that a location's new data costs the writes
/// at and below it, once, not a scan of every write on every lookup. A merge of n paths with a
/// `.validate` at each path, or at a location above them, read new data n times; each lookup
/// scanning the n writes made the check quadratic (5,000 paths took minutes in a debug build).
final class RuleOverlayIndex: Sendable {
    /// The index of the last write at each written path.
    private let last: [Path: Int]
    /// For each location above a written path (the root included), the indexes of the writes
    /// strictly below it, in order.
    private let below: [Path: [Int]]
    /// The new data of each location looked up so far that many writes are below.
    private let looked = Mutex<[Path: Node]>([:])

    /// Overlays with at most this many writes are scanned (a put has one).
    static let threshold = 16

    /// - Complexity: O(n·d) for n writes d keys deep.
    init(_ writes: [RuleData.Write]) {
        var last: [Path: Int] = [:]
        var below: [Path: [Int]] = [:]
        for (index, write) in writes.enumerated() {
            last[write.path] = index
            var above = write.path
            while above.removeLastKey() != nil { below[above, default: []].append(index) }
        }
        self.last = last
        self.below = below
    }

    /// The data at `path` of `base` with `writes` (the ones this index was made of) set in turn.
    /// - Complexity: O(d²) to find the last write at or above `path`, plus setting the later
    ///   writes below it (only the first time for a location above many writes).
    func node(at path: Path, base: RuleData.Base, writes: [RuleData.Write]) -> Node {
        if let node = looked.withLock({ $0[path] }) { return node }
        // The last write at or above `path` (else the base), then the later writes below it.
        var lastAbove: Int?
        var above = path
        while true {
            if let index = last[above], index > (lastAbove ?? -1) { lastAbove = index }
            if above.removeLastKey() == nil { break }
        }
        var result: Node
        if let lastAbove, let relative = writes[lastAbove].path.relative(to: path) {
            result = writes[lastAbove].node.child(at: relative)
        } else {
            result = base.child(at: path)
        }
        let first = (lastAbove ?? -1) + 1
        let later = below[path] ?? []
        for index in later where index >= first {
            if let relative = path.relative(to: writes[index].path) { result.set(writes[index].node, at: relative) }
        }
        // Kept when it was costly to make (a location above many writes, read again by the
        // rules of each path below it).
        if later.count > Self.threshold { looked.withLock { $0[path] = result } }
        return result
    }
}
