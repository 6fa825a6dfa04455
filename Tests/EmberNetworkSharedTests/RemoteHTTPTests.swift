import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

@testable import EmberNetworkShared

/// ``RemoteHTTP`` against a server that answers and closes the moment a request's body is whole,
/// as `ember serve` does for a request with `Connection: close`.
struct RemoteHTTPTests {
    /// Answers `200 ok` the moment a request is whole (NIO's HTTP server codec parsed its end)
    /// and closes at once, without waiting for anything more from the client.
    private final class AnswerAndClose: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .end = unwrapInboundIn(data) else { return }
            let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": "2", "Connection": "close"])
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "ok")))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
        }
    }

    /// Answers every request with its own target and Host in the body, and a Cache-Control.
    private final class Echo: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        private var target = ""
        private var host = ""

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                target = head.uri
                host = head.headers.first(name: "Host") ?? ""
            case .body:
                break
            case .end:
                let text = "\(target) \(host)"
                let head = HTTPResponseHead(
                    version: .http1_1, status: .ok,
                    headers: ["Content-Length": String(text.utf8.count), "Connection": "close", "Cache-Control": "public, max-age=19000"])
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
            }
        }
    }

    /// An HTTP/1.1 server on 127.0.0.1 (a free port) whose connections each get a new `handler`.
    private static func serve(_ handler: @escaping @Sendable () -> any ChannelHandler) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(handler())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    @Test("a GET of an http URL sends its path, query and host, and returns the answer's status, headers and body; other schemes are refused")
    func getsURLs() async throws {
        let server = try await Self.serve { Echo() }
        defer { server.close(promise: nil) }
        let port = try #require(server.localAddress?.port)
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/robot/v1/keys?alt=json"))
        let response = try await RemoteHTTP.get(url)
        #expect(response.status == 200)
        #expect(response.body == "/robot/v1/keys?alt=json 127.0.0.1:\(port)")
        #expect(response.headers.first(name: "Cache-Control") == "public, max-age=19000")
        await #expect(throws: NetworkError.self) { try await RemoteHTTP.get(try #require(URL(string: "ftp://127.0.0.1/keys"))) }
    }

    @Test("a request whose answer comes, and the connection closes, as soon as its body is whole gets that answer (it failed with I/O on closed channel)")
    func answerBeforeTheRequestsEnd() async throws {
        let server = try await Self.serve { AnswerAndClose() }
        defer { server.close(promise: nil) }
        let port = try #require(server.localAddress?.port)
        let address = try RemoteAddress(parsing: "ws://127.0.0.1:\(port)/?ns=demo")
        let body = String(repeating: "r", count: 200)
        var failures: [String] = []
        // Busy tasks on Swift's cooperative pool delay the request's task between its writes
        // (as a loaded machine does), while the event loops, threads of their own, read the
        // answer and the close.
        let busy = (0..<4).map { _ in
            Task.detached {
                while !Task.isCancelled {
                    let start = ContinuousClock.now
                    while ContinuousClock.now - start < .milliseconds(2) {}
                    await Task.yield()
                }
            }
        }
        defer { for task in busy { task.cancel() } }
        for round in 0..<200 {
            do {
                // A GET's head is the whole request; a PUT's body completes it.
                let response = round.isMultiple(of: 2)
                    ? try await RemoteHTTP.send(.GET, "/.settings/rules.json", body: nil, to: address, credential: "owner")
                    : try await RemoteHTTP.send(.PUT, "/.settings/rules.json", body: body, to: address, credential: "owner")
                if response.status != 200 || response.body != "ok" { failures.append("\(response.status) \(response.body)") }
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of 200 failed, the first with: \(failures.first ?? "")")
    }
}
