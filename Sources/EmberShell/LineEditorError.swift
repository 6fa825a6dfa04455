/// A line editor operation failed: what was attempted and why.
public struct LineEditorError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What failed, e.g. "cannot save the history to /tmp/h".
    public let message: String

    /// Creates an error with a message.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
