/// Which way a realtime protocol message crosses.
public enum ProtocolDirection: String, Sendable, Hashable {
    /// From a client to the server.
    case toServer = "to_server"
    /// From the server to a client.
    case toClient = "to_client"
}
