import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// The floor under `ember serve` on this machine: a server on the same stack (SwiftNIO, its
/// HTTP/1 upgrade and WebSocket frame decoder, whole frames written to the channel's core as
/// Ember writes them) that answers the network benchmarks' messages without a database.
///
/// A listen (`"a":"q"`) makes its connection a listener; any other request is answered `ok`,
/// and a put's body goes to every listener as a data update, as Ember would send it. No JSON is
/// parsed (the request id and body are found by scanning bytes), no tree is kept, no lock is
/// shared between the event loops. What `ember-bench network writes10 --floor` measures is
/// what the stack alone costs a write, beside Redis: the best any server on it could do here.
///
/// `ember-bench network-floor [--port P] [--loops N]`: prints `listening on 127.0.0.1:PORT`,
/// serves until killed.
struct FloorServer {
    let port: Int
    let loops: Int

    /// The listeners, by connection.
    final class Hub: Sendable {
        private let listeners = NIOLockedValueBox<[any Channel]>([])

        func add(_ channel: any Channel) {
            listeners.withLockedValue { $0.append(channel) }
        }

        var all: [any Channel] { listeners.withLockedValue { $0 } }
    }

    func run() throws -> Never {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: loops)
        let hub = Hub()
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: 1 << 24,
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(FloorHandler(hub: hub))
                }
            })
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 4096)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
            }
        let channel = try bootstrap.bind(host: "127.0.0.1", port: port).wait()
        print("listening on 127.0.0.1:\(channel.localAddress?.port ?? 0)")
        fflush(nil)
        try channel.closeFuture.wait()
        exit(0)
    }
}
