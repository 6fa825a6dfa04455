import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTP/1.1 request to a ``RemoteAddress`` (TCP, TLS or a local socket), for what the
/// realtime protocol does not carry: the rules (`/.settings/rules.json`); or to an `http`/`https`
/// URL (``get(_:timeout:)``): the keys that sign ID tokens (``TokenVerifier``).
///
/// On SwiftNIO's HTTP/1.1 client codec, like ``WebSocketDialer``, for the same reason: the
/// local socket of a second terminal is a Unix domain socket, which Foundation's `URLSession`
/// cannot reach, and one path serves both. Deliberately not `URLSession` for the keys either:
/// FoundationNetworking links libcurl and some 25 libraries more into `ember`, which every run
/// loaded (and looked symbols up through) before its first answer.
public enum RemoteHTTP {
    /// What the server answered.
    public struct Response: Sendable {
        /// The status code.
        public let status: Int
        /// The answer's headers.
        public let headers: HTTPHeaders
        /// The body, as text.
        public let body: String
    }

    /// `GET url` (`http` or `https`, whose certificate is verified), answered whole.
    /// - Throws: ``NetworkError`` for a URL of another scheme; what SwiftNIO throws when the
    ///   server cannot be reached (after `timeout`), or the connection ends before the answer is
    ///   whole.
    public static func get(_ url: URL, timeout: TimeAmount = .seconds(10)) async throws -> Response {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else {
            throw NetworkError(.badRequest, "\(url.absoluteString) is not an http or https URL")
        }
        let tls = scheme == "https"
        let port = url.port ?? (tls ? 443 : 80)
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        let hostHeader = url.port.map { "\(host):\($0)" } ?? host
        return try await exchange(.GET, target, body: nil, endpoint: .tcp(host: host, port: port, tls: tls), host: hostHeader, credential: nil, timeout: timeout)
    }

    /// Sends `method path` (with `ns=` added) with `body` and `Authorization: Bearer
    /// credential`, and returns the answer.
    /// - Throws: what SwiftNIO throws when the server cannot be reached (after `timeout`), or the
    ///   connection ends before the answer is whole.
    public static func send(
        _ method: HTTPMethod, _ path: String, body: String?, to address: RemoteAddress, credential: String?, timeout: TimeAmount = .seconds(10)
    ) async throws -> Response {
        var target = path
        if let namespace = address.namespace { target += (target.contains("?") ? "&" : "?") + "ns=" + namespace }
        return try await exchange(
            method, target, body: body, endpoint: address.endpoint, host: address.hostHeader, credential: credential, timeout: timeout)
    }

    /// Sends one request to `endpoint` and reads its answer whole.
    private static func exchange(
        _ method: HTTPMethod, _ target: String, body: String?, endpoint: RemoteAddress.Endpoint, host hostHeader: String, credential: String?,
        timeout: TimeAmount
    ) async throws -> Response {
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connectTimeout(timeout)
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        switch endpoint {
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
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: hostHeader)
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
            var answerHeaders = HTTPHeaders()
            var received = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let head):
                    status = Int(head.status.code)
                    answerHeaders = head.headers
                case .body(var chunk): received.writeBuffer(&chunk)
                case .end: return Response(status: status, headers: answerHeaders, body: String(buffer: received))
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
