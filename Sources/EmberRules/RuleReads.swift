import EmberCore

/// The data one rules check read, before and after the write: all that evaluating it again
/// (for `explain`) needs, kept instead of the whole trees.
public struct RuleReads: Sendable {
    private(set) var before: [RuleData.Write] = []
    private(set) var after: [RuleData.Write] = []
    /// The paths of `before` and `after`, once there are many (a merge's check reads each of
    /// its paths): looking each read up in the array made a check of n paths quadratic.
    private var beforePaths: Set<Path> = []
    private var afterPaths: Set<Path> = []

    public init() {}

    /// Appends, making room for a few at first (a check reads a handful of locations).
    private static func append(_ read: RuleData.Write, to reads: inout [RuleData.Write]) {
        if reads.isEmpty { reads.reserveCapacity(4) }
        reads.append(read)
    }

    /// Notes that `node` was read at `path` of `version`.
    /// - Complexity: O(1) on average (a read of the same location is kept once).
    mutating func record(_ node: Node, at path: Path, of version: RuleSnapshot.Version) {
        switch version {
        case .before:
            if Self.isNew(path, in: before, paths: &beforePaths) { Self.append(RuleData.Write(path, node), to: &before) }
        case .after:
            if Self.isNew(path, in: after, paths: &afterPaths) { Self.append(RuleData.Write(path, node), to: &after) }
        }
    }

    /// Whether `path` is not among `reads`: a scan while they are few, then a set of their
    /// paths (made from them at once, then kept with every new one).
    private static func isNew(_ path: Path, in reads: [RuleData.Write], paths: inout Set<Path>) -> Bool {
        if reads.count < 8 { return !reads.contains { $0.path == path } }
        if paths.isEmpty { paths = Set(reads.map(\.path)) }
        return paths.insert(path).inserted
    }
}
