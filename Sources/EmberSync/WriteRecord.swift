import EmberCore

/// One pending user write: a set (or transaction) or an update.
public struct WriteRecord: Sendable {
    /// What the write does.
    public enum Change: Sendable {
        /// Replaces the data at the write's path.
        case overwrite(Node)
        /// Replaces the data at each relative path below the write's path.
        case merge([(Path, Node)])
    }

    /// The write's number.
    public var id: WriteID
    /// Where it writes.
    public var path: Path
    /// What it writes.
    public var change: Change
    /// Whether listeners see it before the server confirms it.
    public var visibility: WriteVisibility

    /// The locations the write replaces: its path for a set, each changed path for an update.
    /// - Complexity: O(k d) for a merge of k paths of depth d.
    var changedPaths: [Path] {
        switch change {
        case .overwrite: [path]
        case .merge(let changes): changes.map { path.appending($0.0) }
        }
    }

    /// Whether the write replaces the data at `path` (or above it).
    /// - Complexity: O(k d) for a merge of k paths of depth d.
    func covers(_ path: Path) -> Bool {
        switch change {
        case .overwrite:
            return self.path.contains(path)
        case .merge(let changes):
            return changes.contains { self.path.appending($0.0).contains(path) }
        }
    }
}
