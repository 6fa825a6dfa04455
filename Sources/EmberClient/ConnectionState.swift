/// Where a client's connection to the server stands (`.info/connected` is true only when
/// ``connected``).
public enum ConnectionState: Sendable, Hashable, CustomStringConvertible {
    /// Not connected, and trying to: the connection was lost, or never opened yet; the client
    /// reconnects with back-off. Writes queue meanwhile.
    case disconnected
    /// A connection is opening (transport up, handshake not received yet).
    case connecting
    /// Connected: writes are sent, listens are live.
    case connected
    /// Offline on purpose (`goOffline`, `ember --offline`): no reconnection until `goOnline`.
    case offline

    /// Whether the client can talk to the server now.
    public var isConnected: Bool { self == .connected }

    /// The word the shell shows (`clients`, the prompt's `(offline)`).
    public var description: String {
        switch self {
        case .disconnected: "disconnected"
        case .connecting: "connecting"
        case .connected: "connected"
        case .offline: "offline"
        }
    }
}
