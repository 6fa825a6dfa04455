import EmberCore
import EmberServer
import EmberWire

/// The engine's share of one acknowledged write with a listener, without the network: decode
/// the request's text, handle it on a server with one listening connection, encode what the
/// server sends (the writer's `ok`, the listener's update). For profiling the serial part of
/// `ember serve`'s writes.
struct HotPathBenchmark {
    /// A connection that encodes what it is sent, as the network's outbox would.
    final class EncodingTransport: Transport {
        typealias Outgoing = ServerMessage
        typealias Incoming = ClientMessage
        var onEvent: ((TransportEvent<ClientMessage>) -> Void)?
        var bytes = 0
        var encode = true
        func send(_ message: ServerMessage) {
            if encode { bytes += RealtimeCodec.encode(message).utf8.count } else { bytes += 1 }
        }
        func close() {}
    }

    /// Nanoseconds per write for: decoding, the server alone, the server with encoding, all.
    static func run(count: Int) -> [(String, Double)] {
        let texts = (0..<count).map { sequence in
            #"{"t":"d","d":{"r":\#(sequence + 2),"a":"p","b":{"p":"/bench/w\#(sequence % 10)/k\#(sequence % 1_000)","d":\#(sequence)}}}"#
        }
        let clock = ContinuousClock()
        var results: [(String, Double)] = []
        // Decoding alone.
        var messages: [ClientMessage] = []
        messages.reserveCapacity(count)
        var start = clock.now
        for text in texts {
            if case .request(let message) = RealtimeCodec.decodeClientFrame(text) { messages.append(message) }
        }
        results.append(("decode", (clock.now - start).nanoseconds / Double(count)))
        for encode in [false, true] {
            let server = Server()
            let listener = EncodingTransport()
            let writer = EncodingTransport()
            listener.encode = encode
            writer.encode = encode
            server.accept(listener)
            server.accept(writer)
            let query = QuerySpec(path: Path(unchecked: "/bench"), params: QueryParams())
            listener.onEvent?(.received(.listen(requestID: 1, query: query, tag: nil, hash: "")))
            start = clock.now
            for message in messages { writer.onEvent?(.received(message)) }
            results.append((encode ? "server+encode" : "server", (clock.now - start).nanoseconds / Double(count)))
        }
        // All of it.
        let server = Server()
        let listener = EncodingTransport()
        let writer = EncodingTransport()
        server.accept(listener)
        server.accept(writer)
        listener.onEvent?(.received(.listen(requestID: 1, query: QuerySpec(path: Path(unchecked: "/bench"), params: QueryParams()), tag: nil, hash: "")))
        start = clock.now
        for text in texts {
            if case .request(let message) = RealtimeCodec.decodeClientFrame(text) { writer.onEvent?(.received(message)) }
        }
        results.append(("all", (clock.now - start).nanoseconds / Double(count)))
        return results
    }
}

extension HotPathBenchmark {
    /// Nanoseconds per delivery of a write to `listeners` connections listening to its
    /// location, the server's part only (each connection counts what it is sent, unencoded).
    static func fanOut(listeners: Int, writes: Int) -> Double {
        let server = Server()
        let query = QuerySpec(path: Path(unchecked: "/room/message"), params: QueryParams())
        var transports: [EncodingTransport] = []
        for _ in 0..<listeners {
            let transport = EncodingTransport()
            transport.encode = false
            server.accept(transport)
            transport.onEvent?(.received(.listen(requestID: 1, query: query, tag: nil, hash: "")))
            transports.append(transport)
        }
        let writer = EncodingTransport()
        server.accept(writer)
        let clock = ContinuousClock()
        let start = clock.now
        for index in 0..<writes {
            let data = Node(.int(Int64(index)))
            writer.onEvent?(.received(.put(requestID: index + 2, path: Path(unchecked: "/room/message"), data: data, hash: nil, writeKey: nil)))
        }
        return (clock.now - start).nanoseconds / Double(writes * listeners)
    }
}

extension Duration {
    var nanoseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }
}
