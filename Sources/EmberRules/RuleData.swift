import EmberCore

/// One version of the whole tree as rules read it: a tree; a tree with a write's values laid
/// over it (`newData`, without building the tree after the write); or only the nodes one check
/// read (what a kept check holds for `explain`, so that it keeps no whole tree alive and the
/// server can go on changing its tree in place).
public struct RuleData: Sendable {
    /// A value written at a path.
    public struct Write: Sendable {
        public let path: Path
        public let node: Node

        public init(_ path: Path, _ node: Node) {
            self.path = path
            self.node = node
        }
    }

    /// The tree a version starts from: whole in memory, or read a location at a time.
    enum Base: Sendable {
        case node(Node)
        case reader(any RuleTreeReader)

        /// The data at `path`.
        /// - Complexity: O(depth of `path`) for a node; the reader's cost otherwise.
        func child(at path: Path) -> Node {
            switch self {
            case .node(let root): root.child(at: path)
            case .reader(let reader): reader.node(at: path)
            }
        }
    }

    enum Source: Sendable {
        case tree(Base)
        /// The base with each write set in turn; indexed when there are many writes.
        case overlay(Base, [Write], RuleOverlayIndex?)
        /// The nodes read, each at its path.
        case recorded([Write])
    }

    let source: Source

    /// The whole tree `root`.
    public static func tree(_ root: Node) -> RuleData { RuleData(source: .tree(.node(root))) }

    /// The whole tree as `reader` reads it, a location at a time.
    public static func reading(_ reader: any RuleTreeReader) -> RuleData { RuleData(source: .tree(.reader(reader))) }

    /// The tree `base` after `writes`, in order (later writes over earlier ones).
    /// - Complexity: O(n·d) for n writes d keys deep when n is large (an index of where they
    ///   are), O(1) otherwise.
    public static func overlay(_ base: Node, _ writes: [Write]) -> RuleData {
        overlay(.node(base), writes)
    }

    /// The tree `reader` reads after `writes`, as ``overlay(_:_:)``.
    public static func overlay(reading reader: any RuleTreeReader, _ writes: [Write]) -> RuleData {
        overlay(.reader(reader), writes)
    }

    private static func overlay(_ base: Base, _ writes: [Write]) -> RuleData {
        RuleData(source: .overlay(base, writes, writes.count > RuleOverlayIndex.threshold ? RuleOverlayIndex(writes) : nil))
    }

    /// Only the nodes in `reads` (a location below one of them is found from it).
    static func recorded(_ reads: [Write]) -> RuleData { RuleData(source: .recorded(reads)) }

    /// Whether this version holds only what one check read.
    public var isRecorded: Bool {
        if case .recorded = source { return true }
        return false
    }

    /// The paths read, when recorded (for tests and `explain`'s account of what it kept).
    public var recordedPaths: [Path] {
        if case .recorded(let reads) = source { return reads.map(\.path) }
        return []
    }

    /// The data at `path`.
    /// - Complexity: O(depth of `path`) in a tree. In an overlay, also O(depth) per write (with
    ///   many writes, O(depth²) through the index), and for each write below `path` a copy of
    ///   the nodes between `path` and the write (the common case, a rule at or below the
    ///   written location, copies nothing; a location above many writes is made once).
    ///   Recorded: O(reads × depth).
    public func node(at path: Path) -> Node {
        switch source {
        case .tree(let base):
            return base.child(at: path)
        case .overlay(let base, let writes, let index?):
            return index.node(at: path, base: base, writes: writes)
        case .overlay(let base, let writes, nil):
            // The location written last, the usual read (a `.validate` where a put wrote): its
            // node as written (the walk below made a relative path and looked it up, 400
            // instructions of a ruled write, callgrind).
            if let last = writes.last, last.path == path { return last.node }
            // From the last write at or above `path` (else the base), then the later writes
            // below it.
            var first = writes.startIndex
            var node: Node?
            for index in writes.indices.reversed() {
                if let below = writes[index].path.relative(to: path) {
                    node = writes[index].node.child(at: below)
                    first = index + 1
                    break
                }
            }
            var result = node ?? base.child(at: path)
            for write in writes[first...] {
                if let above = path.relative(to: write.path) { result.set(write.node, at: above) }
            }
            return result
        case .recorded(let reads):
            // The deepest read at or above `path`.
            var best: Write?
            for read in reads where read.path.contains(path) && read.path.count >= (best?.path.count ?? 0) { best = read }
            guard let best, let below = best.path.relative(to: path) else { return .empty }
            return best.node.child(at: below)
        }
    }
}
