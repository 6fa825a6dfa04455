import EmberEngine
import EmberInstance

/// A server in another process reached over WebSocket with the realtime protocol v5: Ember's
/// `ember serve` or local socket, the Firebase emulator, or Firebase itself. Each client gets a
/// ``WebSocketConnection`` of its own.
///
/// Confined to the engine's thread, like the clients it serves.
public final class WebSocketRemote: RemoteServer {
    /// Where connections go: the address given, or the host a server redirected to.
    public private(set) var address: RemoteAddress
    /// Called with what the user should hear about the connections (a server that cannot be
    /// reached, a redirect, a server going away), on the engine's thread. The same problem is
    /// reported once until a connection succeeds.
    public var onNotice: ((String) -> Void)?
    /// An administrator's credential every connection presents first (`gauth`), before its
    /// client hears that it is open: the emulator's `owner`, or an OAuth access token for
    /// Firebase (as the Admin SDK does). A user's ID token is the client's own business.
    public let adminCredential: String?
    private var lastProblem: String?

    public init(address: RemoteAddress, adminCredential: String? = nil) {
        self.address = address
        self.adminCredential = adminCredential
    }

    public var url: String { address.text }

    public func connect(on engine: Engine) -> any RemoteConnection {
        WebSocketConnection(address: address, engine: engine, remote: self)
    }

    /// A connection reached the server.
    func connected() {
        if lastProblem != nil { onNotice?("connected to \(address.text) again") }
        lastProblem = nil
    }

    /// A connection failed or ended for `problem`.
    func report(_ problem: String) {
        guard problem != lastProblem else { return }
        lastProblem = problem
        onNotice?(problem)
    }

    /// The server asked for connections to go to `host` from now on.
    func redirect(to host: String) {
        address = address.redirected(to: host)
    }
}
