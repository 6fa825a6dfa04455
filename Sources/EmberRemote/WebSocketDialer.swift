import EmberNetworkShared
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// Opens a client WebSocket to a ``RemoteAddress``: TCP, TCP with TLS, or a local (Unix domain)
/// socket, upgraded from HTTP/1.1 by SwiftNIO's typed upgrader.
///
/// Hand-written on SwiftNIO rather than hummingbird-websocket's `WebSocketClient`, which cannot
/// reach a Unix domain socket (its channel type is internal): one path serves `--connect` to a
/// remote server and a second terminal on a database directory alike. The frames are SwiftNIO's
/// (`NIOWebSocket`); the caller masks what it sends and answers pings.
enum WebSocketDialer {
    /// What the upgrade came to.
    enum Upgrade: Sendable {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case refused(HTTPResponseStatus)
    }

    /// The longest frame accepted from the server.
    static let maxFrameSize = 16 << 20

    /// Connects and upgrades.
    /// - Throws: what SwiftNIO throws when the host cannot be reached (refused, unknown,
    ///   timed out after `timeout`), or the TLS handshake fails.
    static func dial(_ address: RemoteAddress, timeout: TimeAmount = .seconds(10)) async throws -> Upgrade {
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(timeout)
            .channelOption(.socketOption(.so_keepalive), value: 1)
        let target = address.requestTarget
        let hostHeader = address.hostHeader
        let upgrade: EventLoopFuture<Upgrade>
        switch address.endpoint {
        case .tcp(let host, let port, let tls):
            let context = try tls ? NIOSSLContext(configuration: .makeClientConfiguration()) : nil
            upgrade = try await bootstrap.channelOption(.tcpOption(.tcp_nodelay), value: 1).connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        let handler = try NIOSSLClientHandler(context: context, serverHostname: host.isIPAddress ? nil : host)
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                    return try configure(channel, target: target, host: hostHeader)
                }
            }
        case .unixSocket(let path):
            upgrade = try await bootstrap.connect(unixDomainSocketPath: path) { channel in
                channel.eventLoop.makeCompletedFuture { try configure(channel, target: target, host: hostHeader) }
            }
        }
        return try await upgrade.get()
    }

    private static func configure(_ channel: any Channel, target: String, host: String) throws -> EventLoopFuture<Upgrade> {
        let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: maxFrameSize) { channel, _ in
            channel.eventLoop.makeCompletedFuture {
                .websocket(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
            }
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: host)
        headers.add(name: "User-Agent", value: "ember")
        headers.add(name: "Content-Length", value: "0")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        let configuration = NIOTypedHTTPClientUpgradeConfiguration<Upgrade>(
            upgradeRequestHead: head, upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                // The response's status is gone with the handler; a refusal is all there is to say.
                channel.close(promise: nil)
                return channel.eventLoop.makeSucceededFuture(.refused(.badRequest))
            })
        // The server's first frame (its hello) often arrives in the same read as the 101:
        // those bytes must go on to the WebSocket decoder (SwiftNIO drops them by default).
        var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
        pipeline.leftOverBytesStrategy = .forwardBytes
        return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
    }
}

extension String {
    /// Whether the text is an IPv4 or IPv6 address rather than a name (no SNI for those).
    fileprivate var isIPAddress: Bool {
        (try? SocketAddress(ipAddress: self, port: 0)) != nil
    }
}
