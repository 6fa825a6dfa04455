import EmberCore

/// What a view holds: the server's data (`serverCache`) and what listeners see, the server's
/// data with pending local writes applied (`eventCache`).
public struct ViewCache: Sendable {
    /// The data listeners see.
    public var eventCache: CacheNode
    /// The data the server sent.
    public var serverCache: CacheNode

    public init(eventCache: CacheNode, serverCache: CacheNode) {
        self.eventCache = eventCache
        self.serverCache = serverCache
    }

    /// The event data, when it is complete.
    public var completeEventNode: Node? { eventCache.completeNode }

    /// The server data, when it is complete.
    public var completeServerNode: Node? { serverCache.completeNode }
}
