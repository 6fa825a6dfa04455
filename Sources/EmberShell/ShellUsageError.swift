/// The command line asks for something that cannot be: `ember` prints it with the usage and
/// exits with status 2.
public struct ShellUsageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, e.g. "--db and --memory cannot be used together".
    public let message: String

    /// Creates an error with a message.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
