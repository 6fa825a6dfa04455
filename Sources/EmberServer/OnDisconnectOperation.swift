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
}
