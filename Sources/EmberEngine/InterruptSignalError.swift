/// The SIGINT handler could not be installed.
public struct InterruptSignalError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Creates the error.
    public init() {}

    /// The message.
    public var description: String { "cannot install the SIGINT handler" }
}
