import EmberCore

/// A file a command names cannot be read or written: what and why, in words ("cannot read /tmp:
/// it is a directory"). The shell reports it with the code `io_error`.
public struct FileAccessError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The whole message: "cannot write /proc/version: permission denied: the file is read-only".
    public let message: String

    /// An error about `path`, for `operation` ("read", "write"), because of `reason`.
    init(_ operation: String, _ path: String, _ reason: String) {
        message = "cannot \(operation) \(path): \(reason)"
    }

    /// The stable code the shell reports it with.
    public var code: String { ErrorCode.ioError }

    /// The message.
    public var description: String { message }
}
