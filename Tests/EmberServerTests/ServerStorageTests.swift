import EmberEngine
import EmberCore
import EmberInstance
import EmberServer
import EmberStorage
import EmberTestSupport
import EmberWire
import Foundation
import GRDB
import Testing

/// A server with a store: its answers wait for the tick's commit, it comes back from a restart
/// with its data and its answers, and a commit that fails refuses its writes.
@Suite("Server storage")
struct ServerStorageTests {
    let clock = ManualClock(1_700_000_000_000)

    private func open(_ file: String, _ durability: Durability = .full) throws -> Server {
        try Server(clock: clock, store: try ServerStore(at: .file(file), durability: durability))
    }

    @Test("answers and updates wait for the end of the tick, in order; the data is there after a restart")
    func heldUntilCommitted() throws {
        let directory = try TemporaryDirectory.make("ember-server").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        let network = InProcessNetwork(clock: clock)
        let server = try open(file)
        let client = RawClient(network, server: server)
        client.send { .listen(requestID: $0, query: QuerySpec(path: "rooms"), tag: nil, hash: "") }
        client.send { .put(requestID: $0, path: "rooms/a", data: json(#"{"topic":"hi",".priority":3}"#), hash: nil, writeKey: "s:w1") }
        client.send { .merge(requestID: $0, path: "rooms", changes: [WireChange("b/n", json("1")), WireChange("c", json("true"))], writeKey: "s:w2") }
        network.engine.runDue()
        #expect(client.take().isEmpty, "nothing is sent before the commit")
        #expect(server.hasUncommittedWork)
        server.endTick()
        network.engine.runDue()
        #expect(
            client.take() == [
                "handshake 1700000000000", "ack 1 ok", #"data rooms/a {"topic":"hi",".priority":3}"#, "ack 2 ok",
                #"merge rooms b/n=1 c=true"#, "ack 3 ok",
            ])
        try server.close()

        let reopened = try open(file)
        #expect(reopened.value(at: "rooms") == json(#"{"a":{"topic":"hi",".priority":3},"b":{"n":1},"c":true}"#))
    }

    @Test("a keyed write sent again after a restart gets its first answer and is not applied twice")
    func answersSurviveARestart() throws {
        let directory = try TemporaryDirectory.make("ember-server").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        let increment = json(#"{".sv":{"increment":1}}"#)
        do {
            let network = InProcessNetwork(clock: clock)
            let server = try open(file, .normal)
            let client = RawClient(network, server: server)
            client.send { .put(requestID: $0, path: "count", data: increment, hash: nil, writeKey: "s:w1") }
            client.send { .put(requestID: $0, path: ".bad", data: json("1"), hash: nil, writeKey: "s:w2") }
            network.engine.runDue()
            server.endTick()
            try server.close()
        }
        let network = InProcessNetwork(clock: clock)
        let server = try open(file, .normal)
        let client = RawClient(network, server: server)
        client.send { .put(requestID: $0, path: "count", data: increment, hash: nil, writeKey: "s:w1") }
        client.send { .put(requestID: $0, path: ".bad", data: json("1"), hash: nil, writeKey: "s:w2") }
        client.send { .put(requestID: $0, path: "count", data: increment, hash: nil, writeKey: "s:w3") }
        network.engine.runDue()
        server.endTick()
        network.engine.runDue()
        #expect(client.take() == ["handshake 1700000000000", "ack 1 ok", "ack 2 invalid_value", "ack 3 ok"])
        #expect(server.value(at: "count") == json("2"))
    }

    @Test(
        "a commit that fails refuses the tick's writes, puts the tree back and tells listeners the data again",
        arguments: ["s:w", "s.x#"])  // an old-style (opaque) key, and Ember's own (the ledger's)
    func failedCommit(keyPrefix: String) throws {
        let directory = try TemporaryDirectory.make("ember-server").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        let network = InProcessNetwork(clock: clock)
        let server = try open(file)
        var failures: [StoreError] = []
        server.onStoreError = { failures.append($0) }
        let writer = RawClient(network, server: server)
        let watcher = RawClient(network, server: server)
        writer.send { .put(requestID: $0, path: "kept", data: json("1"), hash: nil, writeKey: "\(keyPrefix)1") }
        watcher.send { .listen(requestID: $0, query: QuerySpec(path: "kept"), tag: nil, hash: "") }
        network.engine.runDue()
        server.endTick()
        network.engine.runDue()
        _ = writer.take()
        #expect(watcher.take() == ["handshake 1700000000000", "data kept 1", "ack 1 ok"])

        try #require(server.store).refusingWrites {
            writer.send { .merge(requestID: $0, path: "", changes: [WireChange("kept", json("2")), WireChange("new", json("3"))], writeKey: "\(keyPrefix)2") }
            writer.send { .get(requestID: $0, query: QuerySpec(path: "kept")) }
            network.engine.runDue()
            server.endTick()
        }
        network.engine.runDue()
        #expect(failures.count == 1)
        #expect(server.lastStoreError != nil)
        #expect(server.value(at: "") == json(#"{"kept":1}"#))
        #expect(writer.take() == ["ack 2 storage_error", "get 3 1"])
        #expect(watcher.take() == ["data kept 1"], "the watcher hears the data as it is, not the refused write")

        // Sent again, the refused write gets the same refusal; a new write goes through.
        writer.send { .merge(requestID: $0, path: "", changes: [WireChange("kept", json("2"))], writeKey: "\(keyPrefix)2") }
        writer.send { .put(requestID: $0, path: "kept", data: json("4"), hash: nil, writeKey: "\(keyPrefix)3") }
        network.engine.runDue()
        server.endTick()
        network.engine.runDue()
        #expect(writer.take() == ["ack 4 storage_error", "ack 5 ok"])
        try server.close()
        #expect(try open(file).value(at: "") == json(#"{"kept":4}"#))
    }
}

@Suite("Server storage: a full disk")
struct ServerFullDiskTests {
    @Test("writes that do not fit are refused with the disk's reason; the data before stays, in memory and on disk")
    func fullDisk() throws {
        let clock = ManualClock(1_700_000_000_000)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ember-full-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        let network = InProcessNetwork(clock: clock)
        let server = try Server(clock: clock, store: try ServerStore(at: .file(file), durability: .full, maximumSize: 64 * 1024))
        let client = RawClient(network, server: server)
        client.send { .put(requestID: $0, path: "small", data: json(#""fits""#), hash: nil, writeKey: "s:w1") }
        network.engine.runDue()
        server.endTick()
        network.engine.runDue()
        #expect(client.take() == ["handshake 1700000000000", "ack 1 ok"])
        let big = Node(.string(String(repeating: "x", count: 200_000)))
        client.send { .put(requestID: $0, path: "big", data: big, hash: nil, writeKey: "s:w2") }
        network.engine.runDue()
        server.endTick()
        network.engine.runDue()
        #expect(client.take() == ["ack 2 storage_error"])
        #expect(server.lastStoreError?.message.contains("full") == true, "\(String(describing: server.lastStoreError))")
        #expect(server.lastStoreError?.message.contains(file) == true)
        #expect(server.value(at: "") == json(#"{"small":"fits"}"#))
        try server.close()
        #expect(try Server(clock: clock, store: try ServerStore(at: .file(file), durability: .full)).value(at: "") == json(#"{"small":"fits"}"#))
    }
}
