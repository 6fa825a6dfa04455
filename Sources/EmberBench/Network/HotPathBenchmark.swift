import EmberCore
import EmberServer
import EmberWire

/// The engine's share of one acknowledged write with a listener, without the network: decode
/// the request's text, handle it on a server with one listening connection, encode what the
/// server sends (the writer's `ok`, the listener's update). For profiling the serial part of
/// `ember serve`'s writes.
struct HotPathBenchmark {
    /// A connection that encodes what it is sent, as the network's outbox would (or only
    /// counts it).
    final class EncodingTransport: Transport {
        typealias Outgoing = ServerMessage
        typealias Incoming = ClientMessage
        var onEvent: ((TransportEvent<ClientMessage>) -> Void)?
        let encode: Bool
        var bytes = 0

        init(encode: Bool) {
            self.encode = encode
        }

        func send(_ message: ServerMessage) {
            bytes += encode ? RealtimeCodec.encode(message).utf8.count : 1
        }

        func close() {}
    }

    /// A server with `listeners` connections listening to `path`, and one more connection to
    /// write with (the server holds the connections; a connection holds its server unowned, so
    /// the caller keeps the server).
    private static func server(listeners: Int, at path: String, encode: Bool) -> (server: Server, writer: EncodingTransport) {
        let server = Server()
        let query = QuerySpec(path: Path(unchecked: path), params: QueryParams())
        for _ in 0..<listeners {
            let listener = EncodingTransport(encode: encode)
            server.accept(listener)
            listener.onEvent?(.received(.listen(requestID: 1, query: query, tag: nil, hash: "")))
        }
        let writer = EncodingTransport(encode: encode)
        server.accept(writer)
        return (server, writer)
    }

    /// Nanoseconds per write for: decoding, the server alone, the server with encoding, all.
    static func run(count: Int) -> [(String, Double)] {
        let texts = (0..<count).map { sequence in
            #"{"t":"d","d":{"r":\#(sequence + 2),"a":"p","b":{"p":"/bench/w\#(sequence % 10)/k\#(sequence % 1_000)","d":\#(sequence)}}}"#
        }
        let clock = ContinuousClock()
        func nanoseconds(since start: ContinuousClock.Instant) -> Double { (clock.now - start).seconds * 1e9 / Double(count) }
        var results: [(String, Double)] = []
        var messages: [ClientMessage] = []
        messages.reserveCapacity(count)
        var start = clock.now
        for text in texts {
            if case .request(let message) = RealtimeCodec.decodeClientFrame(text) { messages.append(message) }
        }
        results.append(("decode", nanoseconds(since: start)))
        for encode in [false, true] {
            let (server, writer) = server(listeners: 1, at: "/bench", encode: encode)
            start = clock.now
            for message in messages { writer.onEvent?(.received(message)) }
            withExtendedLifetime(server) {}
            results.append((encode ? "server+encode" : "server", nanoseconds(since: start)))
        }
        let (server, writer) = server(listeners: 1, at: "/bench", encode: true)
        start = clock.now
        for text in texts {
            if case .request(let message) = RealtimeCodec.decodeClientFrame(text) { writer.onEvent?(.received(message)) }
        }
        withExtendedLifetime(server) {}
        results.append(("all", nanoseconds(since: start)))
        return results
    }

    /// Nanoseconds per delivery of a write to `listeners` connections listening to its
    /// location, the server's part only (each connection counts what it is sent, unencoded).
    static func fanOut(listeners: Int, writes: Int) -> Double {
        let (server, writer) = server(listeners: listeners, at: "/room/message", encode: false)
        defer { withExtendedLifetime(server) {} }
        let clock = ContinuousClock()
        let start = clock.now
        for index in 0..<writes {
            let put = ClientMessage.put(
                requestID: index + 2, path: Path(unchecked: "/room/message"), data: Node(.int(Int64(index))), hash: nil, writeKey: nil)
            writer.onEvent?(.received(put))
        }
        return (clock.now - start).seconds * 1e9 / Double(writes * listeners)
    }
}
