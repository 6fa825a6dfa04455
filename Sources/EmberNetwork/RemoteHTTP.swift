import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTP/1.1 request to a ``RemoteAddress`` (TCP, TLS or a local socket), for what the
/// realtime protocol does not carry: the rules (`/.settings/rules.json`).
///
/// On SwiftNIO's HTTP/1.1 client codec, like ``WebSocketDialer``, for the same reason: the
/// local socket of a second terminal is a Unix domain socket, which Foundation's `URLSession`
/// cannot reach, and one path serves both.
enum RemoteHTTP {
    /// What the server answered.
    struct Response: Sendable {
        let status: Int
        let body: String
    }

    /// Sends `method path` (with `ns=` added) with `body` and `Authorization: Bearer
    /// credential`, and returns the answer.
    /// - Throws: what SwiftNIO throws when the server cannot be reached (after `timeout`), or the
    ///   connection ends before the answer is whole.
    static func send(
        _ method: HTTPMethod, _ path: String, body: String?, to address: RemoteAddress, credential: String?, timeout: TimeAmount = .seconds(10)
    ) async throws -> Response {
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connectTimeout(timeout)
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        switch address.endpoint {
        case .tcp(let host, let port, let tls):
            let context = try tls ? NIOSSLContext(configuration: .makeClientConfiguration()) : nil
            channel = try await bootstrap.connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: host))
                    }
                    return try wrap(channel)
                }
            }
        case .unixSocket(let path):
            channel = try await bootstrap.connect(unixDomainSocketPath: path) { channel in
                channel.eventLoop.makeCompletedFuture { try wrap(channel) }
            }
        }
        var target = path
        if let namespace = address.namespace { target += (target.contains("?") ? "&" : "?") + "ns=" + namespace }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: address.hostHeader)
        headers.add(name: "User-Agent", value: "ember")
        headers.add(name: "Connection", value: "close")
        if let credential { headers.add(name: "Authorization", value: "Bearer " + credential) }
        let bytes = body.map { ByteBuffer(string: $0) }
        headers.add(name: "Content-Length", value: String(bytes?.readableBytes ?? 0))
        var request: [HTTPClientRequestPart] = [.head(HTTPRequestHead(version: .http1_1, method: method, uri: target, headers: headers))]
        if let bytes { request.append(.body(.byteBuffer(bytes))) }
        request.append(.end(nil))
        return try await channel.executeThenClose { inbound, outbound in
            var writeFailure: (any Error)?
            // The whole request in one write: the server answers `Connection: close` and
            // closes as soon as the body is whole, and a part written after that (the `.end`,
            // which carries no bytes) failed with "I/O on closed channel" though the answer had
            // come. A write that fails still leaves the answer to read, if one came.
            do {
                try await outbound.write(contentsOf: request)
            } catch {
                writeFailure = error
            }
            var status = 0
            var received = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let head): status = Int(head.status.code)
                case .body(var chunk): received.writeBuffer(&chunk)
                case .end: return Response(status: status, body: String(buffer: received))
                }
            }
            throw writeFailure ?? ChannelError.eof
        }
    }

    private static func wrap(_ channel: any Channel) throws -> NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart> {
        try channel.pipeline.syncOperations.addHTTPClientHandlers()
        return try NIOAsyncChannel(wrappingChannelSynchronously: channel)
    }
}
