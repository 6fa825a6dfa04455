/// A stored row that could not be loaded (it would not pass a write's checks): left out of the
/// tree, and reported with its path so that the rest of the data still opens.
public struct BadRow: Sendable, Hashable, CustomStringConvertible {
    /// The row's location, e.g. `/s` or `/a/b/.priority`.
    public let path: String
    /// Why it was left out.
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `/s: invalid value at /s: inf is not a finite number`.
    public var description: String { "\(path): \(reason)" }
}
