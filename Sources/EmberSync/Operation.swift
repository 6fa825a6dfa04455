import EmberCore

/// A change travelling down the tree of sync points to the views it affects. Its path is
/// relative to the sync point it is being applied to.
enum Operation: Sendable {
    /// `node` replaces the data at `path`.
    case overwrite(OperationSource, Path, Node)
    /// Each value of `changes` replaces the data at its path below `path`.
    case merge(OperationSource, Path, ImmutableTree<Node>)
    /// A user write at `path` was confirmed or reverted; `affected` marks the paths it wrote
    /// (a value at the root for an overwrite, one per child for a merge).
    case ackUserWrite(Path, affected: ImmutableTree<Bool>, WriteOutcome)
    /// The server has sent everything for the listen at `path`.
    case listenComplete(OperationSource, Path)

    /// Where the operation applies, relative to the current sync point.
    var path: Path {
        switch self {
        case .overwrite(_, let path, _), .merge(_, let path, _), .ackUserWrite(let path, _, _),
            .listenComplete(_, let path):
            path
        }
    }

    /// Where the operation comes from.
    var source: OperationSource {
        switch self {
        case .overwrite(let source, _, _), .merge(let source, _, _), .listenComplete(let source, _): source
        case .ackUserWrite: .user
        }
    }

    /// The origin of the events the operation raises: a local write's are `local`, a refused
    /// write's acknowledgement `rollback`, everything else the server's.
    var eventOrigin: EventOrigin {
        switch self {
        case .overwrite(.user, _, _), .merge(.user, _, _): .local
        case .ackUserWrite(_, _, .reverted): .rollback
        default: .server
        }
    }

    /// The part of the operation that concerns the child `key`, relative to it, or `nil` when
    /// it does not touch that child.
    /// - Complexity: O(log n).
    func forChild(_ key: ChildKey) -> Operation? {
        switch self {
        case .overwrite(let source, let path, let node):
            if path.isEmpty { return .overwrite(source, .root, node.child(key)) }
            return .overwrite(source, path.popFront, node)
        case .merge(let source, let path, let changes):
            if !path.isEmpty { return .merge(source, path.popFront, changes) }
            let childChanges = changes.subtree(at: Path(keys: [key]))
            if childChanges.isEmpty { return nil }
            if let value = childChanges.value { return .overwrite(source, .root, value) }
            return .merge(source, .root, childChanges)
        case .ackUserWrite(let path, let affected, let outcome):
            if !path.isEmpty { return .ackUserWrite(path.popFront, affected: affected, outcome) }
            // An overwrite affects every child as well.
            if affected.value != nil { return self }
            return .ackUserWrite(.root, affected: affected.subtree(at: Path(keys: [key])), outcome)
        case .listenComplete(let source, let path):
            return .listenComplete(source, path.isEmpty ? .root : path.popFront)
        }
    }
}
