#if canImport(Glibc)
import Glibc
#endif

/// Why a Redis connection or command failed.
enum RedisError: Error, CustomStringConvertible {
    /// The address did not resolve or the server did not accept the connection.
    case connect(String)
    /// A socket call failed: the call and `strerror(errno)`.
    case io(String)
    /// The server closed the connection.
    case closed
    /// No reply within the time limit.
    case timeout(seconds: Double)
    /// The bytes received are not RESP2.
    case protocolViolation(String)
    /// The server answered a command with an error reply.
    case server(String)
    /// A reply of the wrong shape for the command.
    case unexpected(command: String, reply: String)

    var description: String {
        switch self {
        case .connect(let reason): "cannot connect: \(reason)"
        case .io(let reason): "socket error: \(reason)"
        case .closed: "the server closed the connection"
        case .timeout(let seconds): "no reply within \(seconds) s"
        case .protocolViolation(let reason): "protocol violation: \(reason)"
        case .server(let message): "server error: \(message)"
        case .unexpected(let command, let reply): "unexpected reply to \(command): \(reply)"
        }
    }

    /// `call: strerror(errno)`, for the current `errno`.
    static func system(_ call: String) -> RedisError {
        .io("\(call): \(String(cString: strerror(errno)))")
    }
}
