import EmberCore

/// The data one rules check read, before and after the write: all that evaluating it again
/// (for `explain`) needs, kept instead of the whole trees.
public struct RuleReads: Sendable {
    private(set) var before: [RuleData.Write] = []
    private(set) var after: [RuleData.Write] = []

    public init() {}

    /// Appends, making room for a few at first (a check reads a handful of locations).
    private static func append(_ read: RuleData.Write, to reads: inout [RuleData.Write]) {
        if reads.isEmpty { reads.reserveCapacity(4) }
        reads.append(read)
    }

    /// Notes that `node` was read at `path` of `version`.
    /// - Complexity: O(reads so far) (a read of the same location is kept once).
    mutating func record(_ node: Node, at path: Path, of version: RuleSnapshot.Version) {
        switch version {
        case .before:
            if !before.contains(where: { $0.path == path }) { Self.append(RuleData.Write(path, node), to: &before) }
        case .after:
            if !after.contains(where: { $0.path == path }) { Self.append(RuleData.Write(path, node), to: &after) }
        }
    }
}
