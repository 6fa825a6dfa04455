import EmberCore

/// The data one rules check read, before and after the write: all that evaluating it again
/// (for `explain`) needs, kept instead of the whole trees.
public struct RuleReads: Sendable {
    private(set) var before: [RuleData.Write] = []
    private(set) var after: [RuleData.Write] = []

    public init() {}

    /// Notes that `node` was read at `path` of `version`.
    /// - Complexity: O(reads so far) (a read of the same location is kept once).
    mutating func record(_ node: Node, at path: Path, of version: RuleSnapshot.Version) {
        switch version {
        case .before:
            if !before.contains(where: { $0.path == path }) { before.append(RuleData.Write(path, node)) }
        case .after:
            if !after.contains(where: { $0.path == path }) { after.append(RuleData.Write(path, node)) }
        }
    }
}
