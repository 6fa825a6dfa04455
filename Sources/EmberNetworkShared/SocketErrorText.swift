import Glibc
import NIOCore
import NIOPosix

/// Socket errors in words (issue 37: the shell printed SwiftNIO's own
/// `SingleConnectionFailure(target: ..., error: ...)`, `connect(descriptor:addr:size:) ...
/// (errno: 2)` and `bind(...) Address already in use (errno: 98)`).
public enum SocketErrorText {
    /// `error` as a short phrase ("connection refused", "no such file or directory", "address
    /// already in use", "cannot resolve HOST: ..."), or its own description when it is not a
    /// socket error.
    public static func describe(_ error: any Error) -> String {
        if let connection = error as? NIOConnectionError {
            if let dns = connection.dnsAError ?? connection.dnsAAAAError {
                return "cannot resolve \(connection.host): \(describe(dns))"
            }
            if let first = connection.connectionErrors.first { return describe(first.error) }
            return "cannot connect to \(connection.host):\(connection.port)"
        }
        if let io = error as? IOError { return phrase(errno: io.errnoCode) }
        if let channel = error as? ChannelError {
            switch channel {
            case .connectTimeout(let timeout): return "no answer within \(timeout.nanoseconds / 1_000_000_000) s"
            case .ioOnClosedChannel, .alreadyClosed, .eof: return "the connection closed"
            default: return String(describing: channel)
            }
        }
        return String(describing: error)
    }

    /// The system's words for `errno`, in lower case ("connection refused").
    public static func phrase(errno code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }

    /// Whether `error` is a socket's `EADDRINUSE` (another process listens there).
    public static func isAddressInUse(_ error: any Error) -> Bool {
        (error as? IOError)?.errnoCode == EADDRINUSE
    }
}
