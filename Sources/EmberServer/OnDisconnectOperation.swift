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
        if path.contains(self.path) { return nil }
        guard let relative = self.path.relative(to: path) else { return self }
        switch self {
        case .put(let location, let node):
            let remaining = WireChange.forgetting(relative, in: [WireChange(.root, node)])
            if remaining == [WireChange(.root, node)] { return self }
            return remaining.isEmpty ? nil : .merge(location, remaining)
        case .merge(let location, let changes):
            let remaining = WireChange.forgetting(relative, in: changes)
            return remaining.isEmpty ? nil : .merge(location, remaining)
        }
    }
}
