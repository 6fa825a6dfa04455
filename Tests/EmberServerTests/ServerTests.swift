import EmberEngine
import EmberCore
import EmberInstance
import EmberRules
@testable import EmberServer
import EmberTestSupport
import EmberWire
import Testing

/// A client that only records what the server sends: the server's tests speak the wire directly.
final class RawClient {
    let link: InProcessLink
    var received: [ServerMessage] = []
    var closed = false
    private var nextRequest = 1

    init(_ network: InProcessNetwork, server: Server, latency: Int64 = 0, timeout: Int64 = 60_000) {
        link = network.connect(latency: latency, silentDropTimeout: timeout)
        server.accept(link.server)
        link.client.onEvent = { [unowned self] event in
            switch event {
            case .received(let message): received.append(message)
            case .closed: closed = true
            }
        }
    }

    /// Sends a request built with the next request number, and returns that number.
    @discardableResult
    func send(_ build: (Int) -> ClientMessage) -> Int {
        let id = nextRequest
        nextRequest += 1
        link.client.send(build(id))
        return id
    }

    /// What arrived since the last call, rendered.
    func take() -> [String] {
        defer { received.removeAll() }
        return received.map(Self.render)
    }

    static func text(_ path: Path) -> String { path.keys.map(\.name).joined(separator: "/") }

    static func render(_ message: ServerMessage) -> String {
        switch message {
        case .handshake(let time): "handshake \(time)"
        case .ack(let id, .ok): "ack \(id) ok"
        case .ack(let id, .failed(let error)): "ack \(id) \(error.code)"
        case .getResult(let id, .data(let node)): "get \(id) \(node.jsonString(.export))"
        case .getResult(let id, .failed(let error)): "get \(id) \(error.code)"
        case .dataUpdate(let path, let data, let tag): "data \(text(path))\(tag.map { " tag \($0)" } ?? "") \(data.jsonString(.export))"
        case .mergeUpdate(let path, let changes, let tag):
            "merge \(text(path))\(tag.map { " tag \($0)" } ?? "") "
                + changes.map { "\(text($0.path))=\($0.node.jsonString(.export))" }.joined(separator: " ")
        case .listenRevoked(let query, _, let error): "revoked \(query) \(error.code)"
        case .authRevoked(let error): "auth revoked \(error.code)"
        }
    }
}


@Suite("Server")
struct ServerTests {
    let clock = ManualClock(1_700_000_000_000)

    func setUp() -> (InProcessNetwork, Server) {
        (InProcessNetwork(clock: clock), Server(clock: clock))
    }

    @Test("old-style write keys are told apart byte for byte: a key canonically equivalent to another (KELVIN SIGN for K) is another write, applied, not answered as the first")
    func oldStyleWriteKeysCompareBytes() throws {
        let (network, server) = setUp()
        let client = RawClient(network, server: server)
        client.send { .put(requestID: $0, path: "a", data: json("1"), hash: nil, writeKey: "old:K1") }
        client.send { .put(requestID: $0, path: "b", data: json("2"), hash: nil, writeKey: "old:\u{212A}1") }
        client.send { .put(requestID: $0, path: "a", data: json("3"), hash: nil, writeKey: "old:K1") }
        network.engine.runDue()
        #expect(client.take().dropFirst() == ["ack 1 ok", "ack 2 ok", "ack 3 ok"])
        #expect(server.value(at: .root) == json(#"{"a":1,"b":2}"#), "the second write is applied, the third (sent again) is not")
    }

    @Test("the handshake carries the server's time, skew included")
    func handshake() {
        let (network, server) = setUp()
        server.clockSkew = 5_000
        let client = RawClient(network, server: server)
        network.engine.runDue()
        #expect(client.take() == ["handshake 1700000005000"])
    }

    @Test("a listen gets the location's data, then its ack; a matching hash skips the data")
    func listen() throws {
        let (network, server) = setUp()
        try server.put(json(#"{"a":1,"b":{"c":true}}"#), at: "items", hash: nil)
        let client = RawClient(network, server: server)
        client.send { .listen(requestID: $0, query: QuerySpec(path: "items"), tag: nil, hash: "") }
        let hash = server.value(at: "items").hashString
        client.send { .listen(requestID: $0, query: QuerySpec(path: "items/b"), tag: nil, hash: server.value(at: "items/b").hashString) }
        network.engine.runDue()
        #expect(client.take() == ["handshake 1700000000000", #"data items {"a":1,"b":{"c":true}}"#, "ack 1 ok", "ack 2 ok"])
        #expect(!hash.isEmpty)
    }

    @Test("a write reaches every listener above, at and below it with just what it needs; the writer's data comes before its ack")
    func fanOut() throws {
        let (network, server) = setUp()
        let writer = RawClient(network, server: server)
        let watcher = RawClient(network, server: server)
        watcher.send { .listen(requestID: $0, query: QuerySpec(path: "rooms"), tag: nil, hash: "") }
        watcher.send { .listen(requestID: $0, query: QuerySpec(path: "rooms/a/topic/en"), tag: nil, hash: "") }
        watcher.send { .listen(requestID: $0, query: QuerySpec(path: "elsewhere"), tag: nil, hash: "") }
        writer.send { .listen(requestID: $0, query: QuerySpec(path: "rooms/a"), tag: nil, hash: "") }
        network.engine.runDue()
        _ = writer.take()
        _ = watcher.take()
        writer.send { .put(requestID: $0, path: "rooms/a/topic", data: json(#"{"en":"hi","fr":"salut"}"#), hash: nil) }
        network.engine.runDue()
        #expect(writer.take() == [#"data rooms/a/topic {"en":"hi","fr":"salut"}"#, "ack 2 ok"])
        #expect(watcher.take() == [#"data rooms/a/topic {"en":"hi","fr":"salut"}"#, #"data rooms/a/topic/en "hi""#])
    }

    @Test("20,000 listens on one location: each hears a write; those that stop listening, or re-listen with another tag, or close, are kept right")
    func manyListensOnOneLocation() throws {
        let (network, server) = setUp()
        let count = 20_000
        let clients = (0..<count).map { _ in RawClient(network, server: server) }
        for client in clients { client.send { .listen(requestID: $0, query: QuerySpec(path: "room"), tag: nil, hash: "") } }
        network.engine.runDue()
        for client in clients { _ = client.take() }
        try server.put(json("1"), at: "room", hash: nil)
        network.engine.runDue()
        #expect(clients.allSatisfy { $0.take() == ["data room 1"] })
        // Every third stops listening, every fifth listens again (a second listen of the same
        // query replaces the first, its new tag included), and the last closes.
        for (index, client) in clients.enumerated() where index % 3 == 0 {
            client.send { .unlisten(requestID: $0, query: QuerySpec(path: "room"), tag: nil) }
        }
        for (index, client) in clients.enumerated() where index % 5 == 0 && index % 3 != 0 {
            client.send { .listen(requestID: $0, query: QuerySpec(path: "room"), tag: 7, hash: "") }
        }
        network.engine.runDue()
        server.close(try #require(server.connectionIDs.last))
        network.engine.runDue()
        for client in clients { _ = client.take() }
        try server.put(json("2"), at: "room", hash: nil)
        network.engine.runDue()
        var heard = 0
        for (index, client) in clients.enumerated() {
            let expected: [String] =
                index % 3 == 0 || index == count - 1 ? [] : index % 5 == 0 ? ["data room tag 7 2"] : ["data room 2"]
            if client.take() == expected { heard += 1 } else { Issue.record("client \(index): not as expected") }
        }
        #expect(heard == count)
        #expect(server.listenCount(of: try #require(server.connectionIDs.first)) == 0, "the first stopped listening")
    }

    @Test("a filtered query gets tagged changes of its window only")
    func filteredWindow() throws {
        let (network, server) = setUp()
        try server.put(json(#"{"a":{"s":1},"b":{"s":5},"c":{"s":9}}"#), at: "scores", hash: nil)
        let client = RawClient(network, server: server)
        let top = QuerySpec(path: "scores", params: try QueryParams().orderedBy(.child("s")).limitedToLast(2))
        client.send { .listen(requestID: $0, query: top, tag: 7, hash: "") }
        network.engine.runDue()
        #expect(client.take().dropFirst() == [#"data scores tag 7 {"b":{"s":5},"c":{"s":9}}"#, "ack 1 ok"])
        try server.put(json("0"), at: "scores/a/s", hash: nil)
        network.engine.runDue()
        #expect(client.take().isEmpty, "a change outside the window sends nothing")
        try server.put(json("7"), at: "scores/a/s", hash: nil)
        network.engine.runDue()
        #expect(client.take() == [#"merge scores tag 7 b=null a={"s":7}"#])
        try server.put(.empty, at: "scores/c", hash: nil)
        network.engine.runDue()
        #expect(client.take() == [#"merge scores tag 7 c=null b={"s":5}"#], "the window refills from the server")
    }

    @Test("a multi-path update lands whole or not at all")
    func atomicMerge() throws {
        let (network, server) = setUp()
        let client = RawClient(network, server: server)
        client.send { .listen(requestID: $0, query: QuerySpec(path: "notes"), tag: nil, hash: "") }
        network.engine.runDue()
        _ = client.take()
        let bad = Node(children: [(ChildKey(unchecked: "bad/key"), json("1"))])
        client.send {
            .merge(requestID: $0, path: "notes", changes: [WireChange("n1/text", json(#""hello""#)), WireChange("count", bad)])
        }
        client.send {
            .merge(requestID: $0, path: "notes", changes: [WireChange("n1", json("1")), WireChange("n1/text", json("2"))])
        }
        client.send {
            .merge(requestID: $0, path: "notes", changes: [WireChange("n1/text", json(#""hello""#)), WireChange("count", json("1"))])
        }
        network.engine.runDue()
        #expect(client.take() == ["ack 2 invalid_key", "ack 3 invalid_value", #"merge notes n1/text="hello" count=1"#, "ack 4 ok"])
        #expect(server.value(at: "notes") == json(#"{"count":1,"n1":{"text":"hello"}}"#))
    }

    @Test("a hash-guarded put lands only while the value still has that hash")
    func hashGuard() throws {
        let (network, server) = setUp()
        try server.put(json("1"), at: "counter", hash: nil)
        let client = RawClient(network, server: server)
        let seen = json("1").hashString
        client.send { .put(requestID: $0, path: "counter", data: json("2"), hash: seen) }
        client.send { .put(requestID: $0, path: "counter", data: json("3"), hash: seen) }
        network.engine.runDue()
        #expect(client.take().dropFirst() == ["ack 1 ok", "ack 2 datastale"])
        #expect(server.value(at: "counter") == json("2"))
    }

    @Test("a transaction's put guarded by the Web SDK's hash of a number next to a power of two lands")
    func hashGuardWithTheWebSDKsNumbers() throws {
        let (network, server) = setUp()
        try server.put(json("9007199254740991"), at: "counter", hash: nil)
        let client = RawClient(network, server: server)
        // What the Web SDK sends for the value it holds (its doubleToIEEE754String writes
        // 2^53 - 1 with 2^53's bits): the server's own hash differs, and both are the value's.
        let webSDK = json("9007199254740991").hashString(numbers: .javaScript)
        #expect(webSDK != json("9007199254740991").hashString)
        client.send { .put(requestID: $0, path: "counter", data: json("1"), hash: webSDK) }
        client.send { .put(requestID: $0, path: "counter", data: json("2"), hash: webSDK) }
        network.engine.runDue()
        #expect(client.take().dropFirst() == ["ack 1 ok", "ack 2 datastale"])
        #expect(server.value(at: "counter") == json("1"))
    }

    @Test("server values resolve with the server's (skewed) clock and the current value")
    func serverValues() throws {
        let (_, server) = setUp()
        server.clockSkew = -60_000
        try server.put(json(#"{"at":{".sv":"timestamp"},"n":{".sv":{"increment":2}}}"#), at: "x", hash: nil)
        try server.merge([WireChange("n", json(#"{".sv":{"increment":3}}"#))], at: "x")
        #expect(server.value(at: "x") == json(#"{"at":1699999940000,"n":5}"#))
    }

    @Test("bad writes are refused with a clear error and change nothing")
    func validation() throws {
        let (network, server) = setUp()
        let client = RawClient(network, server: server)
        let deep = Path(keys: (0..<32).map { ChildKey(unchecked: "k\($0)") })
        client.send { .put(requestID: $0, path: deep, data: json("1"), hash: nil) }
        client.send { .put(requestID: $0, path: "a", data: Node(.double(.nan)), hash: nil) }
        client.send { .put(requestID: $0, path: Path(keys: [ChildKey(unchecked: "a$b")]), data: json("1"), hash: nil) }
        try server.setRules(Ruleset(text: #"{"rules": {".read": true, "$other": {".write": true}, "locked": {".write": false}}}"#))
        client.send { .put(requestID: $0, path: "locked/x", data: json("1"), hash: nil) }
        network.engine.runDue()
        #expect(client.take().dropFirst() == ["ack 1 path_too_deep", "ack 2 invalid_value", "ack 3 invalid_value", "ack 4 permission_denied"])
        #expect(server.value(at: .root).isEmpty)
    }

    @Test("onDisconnect operations run in order when the connection closes; cancel removes those at and below a path")
    func onDisconnectOnClose() throws {
        let (network, server) = setUp()
        let presence = RawClient(network, server: server)
        let watcher = RawClient(network, server: server)
        watcher.send { .listen(requestID: $0, query: QuerySpec(path: "users"), tag: nil, hash: "") }
        presence.send { .onDisconnectPut(requestID: $0, path: "users/ann/online", data: .empty) }
        presence.send { .onDisconnectPut(requestID: $0, path: "users/ann/last", data: json(#"{".sv":"timestamp"}"#)) }
        presence.send { .onDisconnectMerge(requestID: $0, path: "users/bob", changes: [WireChange("seen", json("true"))]) }
        presence.send { .onDisconnectCancel(requestID: $0, path: "users/bob") }
        presence.send { .put(requestID: $0, path: "users/ann/online", data: json("true"), hash: nil) }
        network.engine.runDue()
        #expect(presence.take().dropFirst() == ["ack 1 ok", "ack 2 ok", "ack 3 ok", "ack 4 ok", "ack 5 ok"])
        #expect(server.onDisconnectOperations(of: ConnectionID(1)).count == 2)
        _ = watcher.take()
        clock.advance(by: 1_000)
        presence.link.close()
        network.engine.runDue()
        #expect(watcher.take() == ["data users/ann/online null", "data users/ann/last 1700000001000"])
        #expect(server.value(at: "users") == json(#"{"ann":{"last":1700000001000}}"#))
        #expect(server.connectionIDs == [ConnectionID(2)])
    }

    @Test("after a silent drop the server runs onDisconnect only once its timeout has passed")
    func onDisconnectOnSilentDrop() throws {
        let (network, server) = setUp()
        let presence = RawClient(network, server: server, timeout: 30_000)
        presence.send { .onDisconnectPut(requestID: $0, path: "online/ann", data: .empty) }
        presence.send { .put(requestID: $0, path: "online/ann", data: json("true"), hash: nil) }
        network.engine.runDue()
        presence.link.drop()
        network.engine.runDue()
        #expect(presence.closed)
        #expect(server.value(at: "online/ann") == json("true"))
        clock.advance(by: 30_000)
        network.engine.runDue()
        #expect(server.value(at: "online/ann").isEmpty)
    }

    @Test("an onDisconnect registration the rule refuses fails at once; one refused when it fires is skipped")
    func onDisconnectRules() throws {
        let (network, server) = setUp()
        let client = RawClient(network, server: server)
        try server.setRules(Ruleset(text: #"{"rules": {".read": true, "$other": {".write": true}, "locked": {".write": false}}}"#))
        client.send { .onDisconnectPut(requestID: $0, path: "locked/a", data: json("1")) }
        client.send { .onDisconnectPut(requestID: $0, path: "later/a", data: json("1")) }
        client.send { .onDisconnectPut(requestID: $0, path: "open/a", data: json("1")) }
        network.engine.runDue()
        #expect(client.take().dropFirst() == ["ack 1 permission_denied", "ack 2 ok", "ack 3 ok"])
        try server.setRules(Ruleset(text: #"{"rules": {".read": true, "$other": {".write": true}, "later": {".write": false}}}"#))
        client.link.close()
        network.engine.runDue()
        #expect(server.value(at: .root) == json(#"{"open":{"a":1}}"#))
    }

    @Test("get answers with the query's data")
    func get() throws {
        let (network, server) = setUp()
        try server.put(json(#"{"a":3,"b":1,"c":2}"#), at: "n", hash: nil)
        let client = RawClient(network, server: server)
        client.send { .get(requestID: $0, query: QuerySpec(path: "n", params: try! QueryParams().orderedBy(.value).limitedToFirst(2))) }
        network.engine.runDue()
        #expect(client.take().dropFirst() == [#"get 1 {"b":1,"c":2}"#])
    }
}
