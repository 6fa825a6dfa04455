/// A problem with the SyncPoint spec file itself: missing, unreadable, or not in the format the
/// runner knows.
public struct SyncPointSpecError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, naming the case, step and member concerned.
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
