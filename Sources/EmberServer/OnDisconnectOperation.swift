import EmberCore
import EmberWire

/// A write the server performs for a client when its connection ends.
public enum OnDisconnectOperation: Sendable, Hashable {
    /// Replace the value at the path.
    case put(Path, Node)
    /// Set several paths below the path at once.
    case merge(Path, [WireChange])

    /// Where the operation writes.
    public var path: Path {
        switch self {
        case .put(let path, _), .merge(let path, _): path
        }
    }

    /// The operation without what it would write at or below `path` (a cancel there), or `nil`
    /// when nothing of it is left. A put above `path` becomes a merge of what remains of its
    /// children (``WireChange/forgetting(_:in:)``).
    public func forgetting(_ path: Path) -> OnDisconnectOperation? {
        let changes: [WireChange] =
            switch self {
            case .put(_, let node): [WireChange(.root, node)]
            case .merge(_, let changes): changes
            }
        guard let remaining = WireChange.remaining(of: changes, at: self.path, afterCancelling: path) else { return nil }
        return remaining == changes ? self : .merge(self.path, remaining)
    }
}
