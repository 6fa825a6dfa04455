/// The limits at the network edge, so that one client cannot take the server down.
public struct NetworkLimits: Sendable, Hashable {
    /// The largest message a WebSocket client may send (reassembled), in bytes. Firebase's own
    /// limit on a write is 256 MB over REST and 16 MB over the SDKs; Ember takes 16 MB on both.
    public var maxMessageSize = 16 << 20
    /// The largest HTTP request body, in bytes.
    public var maxBodySize = 16 << 20
    /// How many connections may be open at once: every HTTP connection counts, from its first
    /// moment (WebSockets and event streams, and requests and idle ones too).
    public var maxConnections = 10_000
    /// How much a connection may have waiting to be sent, in bytes, before it is closed: a
    /// client that stops reading is cut off instead of slowing everyone down.
    public var maxUnsentBytes = 64 << 20
    /// How long a WebSocket may stay silent before it is closed, in seconds (Firebase's clients
    /// send a keep-alive every 45 s).
    public var idleTimeout = 120
    /// How long a request's head may take to arrive whole, in seconds (at most
    /// ``idleTimeout``): from the connection's opening, or from the first byte of the next
    /// request, not moved by each byte (``ConnectionGate``).
    public var requestHeadTimeout = 10
    /// How many namespaces may be opened.
    public var maxNamespaces = 64

    public init() {}
}
